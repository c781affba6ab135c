provider loop {
	probe tick(long i);
};
