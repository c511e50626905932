/* The keymap table of keys.h turned into lookups, labels and the key dump. */
#include "tui/keys.h"

#include <stdio.h>
#include <string.h>

#include "tui/tui.h"

#define TUI_REQ_KEYS(name, hint, rank, desc, ...) static const int keys_##name[] = {__VA_ARGS__, 0};
TUI_REQUESTS(TUI_REQ_KEYS)
#undef TUI_REQ_KEYS

static const struct {
	const char *name, *hint, *desc;
	int rank;
	const int *keys;
} req_table[REQ_COUNT] = {
	[REQ_NONE] = {"NONE", NULL, "", 0, NULL},
#define TUI_REQ_ROW(n, hint, rank, desc, ...) [REQ_##n] = {#n, hint, desc, rank, keys_##n},
	TUI_REQUESTS(TUI_REQ_ROW)
#undef TUI_REQ_ROW
};

enum req keys_lookup(int ch)
{
	for (int r = 1; r < REQ_COUNT; r++)
		for (const int *k = req_table[r].keys; *k; k++)
			if (*k == ch)
				return (enum req)r;
	return REQ_NONE;
}

const char *keys_name(int ch, char *buf, size_t cap)
{
	static const struct {
		int key;
		const char *name;
	} names[] = {
		{KEY_DOWN, "Down"}, {KEY_UP, "Up"}, {KEY_LEFT, "Left"}, {KEY_RIGHT, "Right"},
		{KEY_NPAGE, "PgDn"}, {KEY_PPAGE, "PgUp"}, {KEY_HOME, "Home"}, {KEY_END, "End"},
		{KEY_ENTER, "Enter"}, {'\n', "Enter"}, {'\r', "Enter"}, {KEY_BACKSPACE, "Backspace"},
		{127, "Backspace"}, {'\b', "Backspace"}, {27, "Esc"}, {'\t', "Tab"},
		{KEY_BTAB, "Shift-Tab"}, {' ', "Space"}, {KEY_SLEFT, "Shift-Left"},
		{KEY_SRIGHT, "Shift-Right"}, {KEY_SR, "Shift-Up"}, {KEY_SF, "Shift-Down"},
		{KEY_MOUSE, "Mouse"}, {KEY_F(1), "F1"}, {KEY_F(10), "F10"},
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (names[i].key == ch) {
			snprintf(buf, cap, "%s", names[i].name);
			return buf;
		}
	if (ch > 0 && ch < 0x20)
		snprintf(buf, cap, "Ctrl-%c", ch + '@');
	else if (ch > 0x20 && ch < 0x7f)
		snprintf(buf, cap, "%c", ch);
	else
		snprintf(buf, cap, "key%d", ch);
	return buf;
}

const char *keys_label(enum req r)
{
	static char out[128];
	size_t n = 0;
	out[0] = 0;
	if (r <= REQ_NONE || r >= REQ_COUNT)
		return out;
	for (const int *k = req_table[r].keys; *k; k++) {
		char name[32];
		keys_name(*k, name, sizeof name);
		/* Enter and Backspace have several codes: name each once */
		int seen = 0;
		for (const int *j = req_table[r].keys; j < k; j++) {
			char other[32];
			if (strcmp(keys_name(*j, other, sizeof other), name) == 0)
				seen = 1;
		}
		if (seen)
			continue;
		n += (size_t)snprintf(out + n, sizeof out - n, "%s%s", n ? " " : "", name);
		if (n >= sizeof out)
			break;
	}
	return out;
}

const char *keys_desc(enum req r)
{
	return r > REQ_NONE && r < REQ_COUNT ? req_table[r].desc : "";
}

const char *keys_req_name(enum req r)
{
	return r >= REQ_NONE && r < REQ_COUNT ? req_table[r].name : "?";
}

int keys_hint_rank(enum req r)
{
	return r > REQ_NONE && r < REQ_COUNT ? req_table[r].rank : 0;
}

const char *keys_hint(enum req r)
{
	return r > REQ_NONE && r < REQ_COUNT ? req_table[r].hint : NULL;
}

void tui_print_keys(FILE *out)
{
	for (int r = 1; r < REQ_COUNT; r++) {
		fputs("|", out);
		const char *label = keys_label((enum req)r);
		/* each key in backquotes: | `j` `Down` | move down ... | */
		char copy[128];
		snprintf(copy, sizeof copy, "%s", label);
		for (char *save = NULL, *k = strtok_r(copy, " ", &save); k;
		     k = strtok_r(NULL, " ", &save))
			fprintf(out, " `%s`", strcmp(k, "|") == 0 ? "\\|" : k);
		fprintf(out, " | %s |\n", req_table[r].desc);
	}
}
