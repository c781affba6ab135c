/* The provider of tst.i386.d's program. */
provider audx {
	probe tick(int, int);
};
