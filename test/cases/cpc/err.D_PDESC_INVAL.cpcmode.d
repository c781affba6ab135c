/* @@stderr: invalid mode "any": all, user or kernel */
cpc:::page-faults-any-1000 { @ = count(); }
