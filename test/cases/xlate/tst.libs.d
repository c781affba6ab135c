/* D libraries from -L and -x libdir: loaded in dependency order (aaa.d
   after base.d), a file hidden by one of the same name earlier in the
   search path, libraries for an absent provider skipped with the ones
   depending on them. Their types, inlines and translators serve the
   program. */
/* @@opts: -q -L lib -x libdir=lib2 */
BEGIN {
	printf("%d %d %d %d\n", LIBVAL, EXTRA, sizeof(wrap_t), offsetof(wrap_t, p));
	printf("%d %s\n", xlate<sum_t>(10).total, xlate<sum_t *>(0)->label);
	exit(0);
}
