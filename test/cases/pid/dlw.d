/* The provider of dlmain.c and dlwork.c: one probe in the program, one in
   the library it loads with dlopen(). */
provider dlw {
	probe ready();
	probe work(int);
};
