CPU     ID                    FUNCTION:NAME
 *\d+      1                           :BEGIN 

