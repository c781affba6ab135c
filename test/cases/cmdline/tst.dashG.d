/* -G is accepted and explained: nothing to link on Linux. */
/* @@opts: -G */
/* @@stderr: -G is not needed on Linux */
provider p { probe q(); };
