/* An array dimension must be a positive integral constant. */
int a[-1];
BEGIN { exit(0); }
