/* A header for tst.cppopts.d, found through -I. */
#define FROM_HEADER 17
