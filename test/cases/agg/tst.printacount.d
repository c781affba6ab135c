/* @@opts: -q */
BEGIN { @ = count(); @ = count(); printa("[%@u][%@8d][%@-4d]\n", @); exit(0); }
