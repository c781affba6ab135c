CPU     ID                    FUNCTION:NAME
 +[0-9]+      1                           :BEGIN 
 +[0-9]+      1                           :BEGIN 
 +[0-9]+      1                           :BEGIN 
 +[0-9]+      2                             :END 

