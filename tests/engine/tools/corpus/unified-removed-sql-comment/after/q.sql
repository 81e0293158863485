-- set up
SELECT 1;
