++ counter
-- set up
++ counter
SELECT 1;
