/* Prints the views' column tables (index/view: tix_view_cols) for
 * tests/tui/faces.py, which lays the TUI's screens out with them to cut
 * each line into cells: first the flag bits by name, then one line a
 * column: kind, title, width, flags, prio, key, unit (tab-separated). */
#include <stdio.h>

#include "index/view/view.h"

static const char *const kinds[TIX_VIEW_COUNT] = {
	[TIX_VIEW_STEPS] = "steps",
	[TIX_VIEW_KERNELS] = "kernels",
	[TIX_VIEW_LAUNCHES] = "launches",
	[TIX_VIEW_OPS] = "ops",
	[TIX_VIEW_CMP_KERNELS] = "cmp_kernels",
	[TIX_VIEW_CMP_OPS] = "cmp_ops",
	[TIX_VIEW_CMP_STEPS] = "cmp_steps",
	[TIX_VIEW_CMP_SHAPES] = "cmp_shapes",
	[TIX_VIEW_CMP_LAUNCHES] = "cmp_launches",
	[TIX_VIEW_CMP_FINDINGS] = "cmp_findings",
	[TIX_VIEW_RANKS] = "ranks",
};

int main(void)
{
	printf("flag\tRIGHT\t%d\nflag\tBAR\t%d\nflag\tFLEX\t%d\nflag\tFIT\t%d\nflag\tDATA\t%d\n",
	       TIX_COL_RIGHT, TIX_COL_BAR, TIX_COL_FLEX, TIX_COL_FIT, TIX_COL_DATA);
	for (int k = 0; k < TIX_VIEW_COUNT; k++) {
		int n;
		const struct tix_col *c = tix_view_cols((enum tix_view_kind)k, &n);
		for (int i = 0; i < n; i++) {
			if (kinds[k])
				printf("%s", kinds[k]);
			else
				printf("kind%d", k);
			printf("\t%s\t%d\t%d\t%d\t%s\t%d\n", c[i].title, c[i].width, c[i].flags, c[i].prio,
			       c[i].key ? c[i].key : "", (int)c[i].unit);
		}
	}
	return 0;
}
