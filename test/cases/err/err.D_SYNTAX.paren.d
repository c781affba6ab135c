BEGIN { printf("x" }
