/* base.d: declarations aaa.d depends on (loaded first, though it sorts
   after it). */
#pragma D binding "1.6.1" LIBVAL
#pragma D attributes Evolving/Evolving/Common provider base args

struct pair {
	int64_t a;
	int64_t b;
};

typedef struct pair pair_t;

inline int LIBVAL = 1;
