/* Translators over integers in BEGIN: the struct form (.) and the pointer
   form (->); a pointer to the whole struct kept in a clause-local; string
   members; a member converted to its type (low = 300 keeps 8 bits); a
   translator member that uses another translator; the translator chosen
   by input type (exact, typedefs resolved, then any integer); enums and
   typedefs of integers; an inline that is a translation (as DTrace's
   curpsinfo is), and one that is a string. */
#pragma D option quiet

typedef struct num {
	int64_t twice;
	string text;
	uint8_t low;
	int which;
} num_t;

typedef int16_t small_t;

translator num_t < int64_t n > {
	twice = n * 2;
	text = strjoin("n=", lltostr(n));
	low = n;
	which = 64;
};

translator num_t < small_t n > {
	twice = n * 2;
	text = "small";
	low = n;
	which = 16;
};

typedef struct pair {
	int64_t sum;
	string both;
} pair_t;

translator pair_t < int64_t x > {
	sum = xlate<num_t>(x).twice + xlate<num_t *>(x + 1)->twice;
	both = strjoin(xlate<num_t>(x).text, xlate<num_t>((small_t)x).text);
};

enum color { RED, GREEN = 5, BLUE };

inline num_t *NINE = xlate<num_t *>(9);
inline string WHO = strjoin(execname, "!");

BEGIN {
	printf("%d %s %d\n", xlate<num_t>(21).twice, xlate<num_t *>(4)->text, xlate<num_t>(300).low);
	this->n = xlate<num_t *>(-7);
	printf("%d %s %d %d\n", this->n->twice, this->n->text, this->n->low, this->n->which);
	printf("%d %d %d %d\n", xlate<num_t>(1l).which, xlate<num_t>((small_t)1).which,
	    xlate<num_t>((short)1).which, xlate<num_t>((char)1).which);
	printf("%d %s\n", xlate<pair_t>(10).sum, xlate<pair_t *>(10)->both);
	printf("%d %d %d %d\n", RED, GREEN, BLUE, sizeof(enum color));
	printf("%d %s %s\n", NINE->twice, NINE->text, WHO);
	exit(0);
}
