total  =  price *   count
