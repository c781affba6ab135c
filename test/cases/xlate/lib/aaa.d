/* aaa.d: uses base.d's types, so base.d must be loaded before it. */
#pragma D depends_on library base.d

typedef struct wrap {
	char tag;
	struct pair p;	/* incomplete unless base.d came first */
} wrap_t;

typedef struct sum {
	int64_t total;
	string label;
} sum_t;

#pragma D binding "1.6.1" translator
translator sum_t < int64_t x > {
	total = x + LIBVAL + sizeof (pair_t);
	label = "from aaa.d";
};
