/* uregs[] is indexed by a register name, a constant. */
BEGIN { i = 3; trace(uregs[i]); exit(0); }
