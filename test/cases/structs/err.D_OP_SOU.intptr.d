/* @@stderr: operator -> cannot be applied to pointer to type "int"; must be applied to a struct or union pointer */
BEGIN { p = (int *)alloca(4); trace(p->member); }
