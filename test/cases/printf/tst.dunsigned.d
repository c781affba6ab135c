/* %d of an unsigned value prints it unsigned (dt_printf turns %d into %u for unsigned types). */
/* @@opts: -q */
BEGIN { printf("%d %d\n", (uint32_t)0xffffffff, (uint64_t)-1); exit(0); }
