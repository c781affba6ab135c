/* A translator from the struct timespec * argument of clock_nanosleep(2)
   (sleep 1 asks for 1 s, 0 ns): members read with copyin() through the
   parameter's member addresses (&T->tv_sec), or directly through a
   userland parameter; members used one at a time, the whole struct built
   in scratch memory, and the members a translator leaves out are zero. */
/* @@opts: -q -c 'sleep 1' */
struct timespec {
	int64_t tv_sec;
	int64_t tv_nsec;
};

typedef struct ts_info {
	int64_t sec;
	int64_t nsec;
	string who;
	int64_t unset;
} ts_info_t;

translator ts_info_t < struct timespec *T > {
	sec = *(int64_t *)copyin((uintptr_t)&T->tv_sec, 8);
	nsec = *(int64_t *)copyin((uintptr_t)&T->tv_nsec, sizeof (T->tv_nsec));
	who = execname;
};

typedef struct ts_user {
	int64_t ms;
} ts_user_t;

translator ts_user_t < userland struct timespec *T > {
	ms = T->tv_sec * 1000 + T->tv_nsec / 1000000;
};

syscall::clock_nanosleep:entry /pid == $target/ {
	printf("%d %d %s\n", xlate<ts_info_t>((struct timespec *)arg2).sec,
	    xlate<ts_info_t *>((struct timespec *)arg2)->nsec, xlate<ts_info_t>((struct timespec *)arg2).who);
	this->t = xlate<ts_info_t *>((struct timespec *)arg2);
	printf("%d %d %s %d\n", this->t->sec, this->t->nsec, this->t->who, this->t->unset);
	printf("%d ms\n", xlate<ts_user_t>((userland struct timespec *)arg2).ms);
}
