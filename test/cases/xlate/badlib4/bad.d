typedef struct broken {
	int x
} broken_t;
