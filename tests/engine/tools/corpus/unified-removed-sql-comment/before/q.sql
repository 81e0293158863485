-- setup
SELECT 1;
