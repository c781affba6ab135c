#pragma D option quiet
BEGIN { printf("quiet\n"); exit(0); }
