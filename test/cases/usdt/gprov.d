/* The provider of tst.dashGlink.d's program. */
provider reachg {
	probe tick(int, int);
	probe done();
};
