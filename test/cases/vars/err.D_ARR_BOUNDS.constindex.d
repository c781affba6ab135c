/* A constant index outside a global array is refused at compile time
   (Oracle DTrace's err.D_ARR_BOUNDS.declared). */
int a[5];
BEGIN { trace(a[5]); exit(0); }
