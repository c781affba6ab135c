/* @@opts: -q */
string g;
BEGIN { printf("[%s] %d\n", g, g == ""); g = "set"; printf("[%s]\n", g); exit(0); }
