BEGIN { printf("loud"); exit(0); }
