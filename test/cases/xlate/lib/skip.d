/* skip.d: for a provider that does not exist, so it is skipped silently
   (else LIBVAL would be declared twice). */
#pragma D depends_on provider nosuchprovider
inline int LIBVAL = 2;
