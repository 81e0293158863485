-- setup
++ counter
SELECT 1;
