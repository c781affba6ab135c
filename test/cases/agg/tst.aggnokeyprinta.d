/* @@opts: -q */
BEGIN { @ = sum(3); printa(@); exit(0); }
