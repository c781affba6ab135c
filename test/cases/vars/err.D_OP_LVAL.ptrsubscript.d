/* Memory a userland pointer designates is not assigned through a
   subscript (this made code generation panic); through a kernel pointer
   the store is made in scratch memory and faults elsewhere
   (structs/tst.allocastore.d). */
BEGIN { p = (userland int *)arg0; p[1]++; exit(0); }
