   ID   PROVIDER            MODULE                          FUNCTION NAME
 *\d+    syscall                                                read entry
 *\d+    syscall                                               write return
