io:::start { x = args[0]->b_nosuch; }
