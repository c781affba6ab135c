/* Provider of tst.redzone.d's workload (redzone.c). */
provider rz {
	probe fill(long i, long last);
};
