/* b.d and a.d depend on each other */
#pragma D depends_on library a.d
