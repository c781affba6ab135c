/* Memory a pointer designates is not assigned through a subscript (this
   made code generation panic). */
BEGIN { p = (int *)arg0; p[1]++; exit(0); }
