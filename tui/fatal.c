/* The TUI's fatal-signal path: see fatal.h. */
#include "tui/fatal.h"

#include <curses.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

#include "index/index.h"

static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL};
#define NSIG_FATAL (int)(sizeof(fatal_signals) / sizeof(fatal_signals[0]))

/* What the handler needs, prepared beforehand: it may only call what is
 * safe in a signal handler (and endwin, once, as the best effort there is). */
static struct {
	const struct tui_trace *traces;
	int ntraces;
	char **bus_msg;             /* per trace: the line for a SIGBUS in its index */
	struct termios tty;
	int have_tty;
	volatile sig_atomic_t entered;
	pid_t ending;               /* the thread that ends the process (gettid), 0: none yet */
	struct sigaction old[NSIG_FATAL];
	stack_t old_stack;
	int on;
} F;

/* A stack for the handler: SIGSEGV from a stack overflow has none left. */
static char alt_stack[64 * 1024];

/* Takes the right to end the process for the calling thread: 1, or 0 when
 * another thread has it (*again: this thread had it already).  Two threads
 * may fault at once: the index's checker reads every block of a mapped
 * index beside the TUI (index/check.c), and an index truncated under both
 * raises SIGBUS in each.  With the handler reset on the first delivery, the
 * second thread's SIGBUS killed the process ("Bus error", 135) while the
 * first wrote its line.  Async-signal-safe: an atomic and a raw syscall. */
static int take_the_end(int *again)
{
	pid_t me = (pid_t)syscall(SYS_gettid), none = 0;
	*again = 0;
	if (__atomic_compare_exchange_n(&F.ending, &none, me, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		return 1;
	*again = none == me;
	return 0;
}

/* Dies of sig, its default action back (no second try of the handler). */
static void die_of(int sig)
{
	struct sigaction dfl;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	raise(sig);
	_exit(128 + sig); /* not reached: sig is not blocked (SA_NODEFER) */
}

static void on_fatal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	int again;
	if (!take_the_end(&again)) {
		if (again) /* a fault inside this handler: die of it */
			die_of(sig);
		for (;;) /* another thread is ending the process: wait for it */
			pause();
	}
	if (F.have_tty)
		tcsetattr(STDIN_FILENO, TCSANOW, &F.tty); /* first: safe, and enough for a shell */
	if (!F.entered++)
		endwin(); /* leaves the alternate screen, shows the cursor; a crash inside it ends here */
	if (sig == SIGBUS && si) {
		for (int i = 0; i < F.ntraces; i++) {
			if (F.traces[i].ix && tix_index_maps(F.traces[i].ix, si->si_addr)) {
				ssize_t w = write(STDERR_FILENO, F.bus_msg[i], strlen(F.bus_msg[i]));
				(void)w;
				_exit(2);
			}
		}
	}
	die_of(sig);
}

/* Damage a query meets in an index (index.h: its parts are checked when
 * first read): the terminal back first, then the one line, exit status 2. */
static void on_damage(const struct tix_index *ix, void *ctx, const char *msg)
{
	(void)ix;
	(void)ctx;
	int again;
	if (!take_the_end(&again))
		for (;;) /* a fatal signal's handler is ending the process */
			pause();
	if (F.have_tty)
		tcsetattr(STDIN_FILENO, TCSANOW, &F.tty);
	if (!F.entered++)
		endwin();
	fprintf(stderr, "tix: %s\n", msg);
	exit(2);
}

int fatal_begin(const struct tui_trace *traces, int ntraces)
{
	memset(&F, 0, sizeof(F));
	F.bus_msg = calloc((size_t)ntraces, sizeof(*F.bus_msg));
	if (!F.bus_msg)
		return -1;
	for (int i = 0; i < ntraces; i++) {
		char pb[600], line[800];
		snprintf(line, sizeof(line),
		         "tix: %s: the index file changed while tix had it open (truncated, rewritten, or its "
		         "disk full): open it again\n",
		         tix_printable(traces[i].path, pb, sizeof(pb)));
		if (!(F.bus_msg[i] = strdup(line))) {
			while (i-- > 0)
				free(F.bus_msg[i]);
			free(F.bus_msg);
			return -1;
		}
	}
	F.traces = traces;
	F.ntraces = ntraces;
	F.have_tty = tcgetattr(STDIN_FILENO, &F.tty) == 0;
	stack_t ss = {.ss_sp = alt_stack, .ss_size = sizeof(alt_stack), .ss_flags = 0};
	sigaltstack(&ss, &F.old_stack);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fatal;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER; /* no SA_RESETHAND: take_the_end */
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < NSIG_FATAL; i++)
		sigaction(fatal_signals[i], &sa, &F.old[i]);
	for (int i = 0; i < ntraces; i++)
		if (traces[i].ix)
			tix_index_on_damage(traces[i].ix, on_damage, NULL);
	F.on = 1;
	return 0;
}

void fatal_end(void)
{
	if (!F.on)
		return;
	for (int i = 0; i < NSIG_FATAL; i++)
		sigaction(fatal_signals[i], &F.old[i], NULL);
	for (int i = 0; i < F.ntraces; i++)
		if (F.traces[i].ix)
			tix_index_on_damage(F.traces[i].ix, NULL, NULL);
	sigaltstack(&F.old_stack, NULL);
	for (int i = 0; i < F.ntraces; i++)
		free(F.bus_msg[i]);
	free(F.bus_msg);
	memset(&F, 0, sizeof(F));
}
