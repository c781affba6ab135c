/* @@opts: -q */
BEGIN { @ = count(); @ = count(); @ = count(); exit(0); }
