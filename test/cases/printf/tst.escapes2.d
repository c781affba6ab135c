/* @@opts: -q */
BEGIN { printf("%s|\x42|\101|\"q\"|\?|\\\n", "s"); exit(0); }
