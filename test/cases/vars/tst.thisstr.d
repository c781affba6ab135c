/* @@opts: -q */
BEGIN { this->s = "xyz"; printf("[%s]\n", this->s); exit(0); }
