/* 1- and 2-byte keys print unsigned, %3d and %5d (dt_print_datum). */
/* @@opts: -q */
BEGIN { @c[(uint8_t)200] = count(); @s[(int16_t)-2] = count(); exit(0); }
