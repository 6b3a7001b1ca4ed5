"""The rules: bitboards and tables (`bitboards`), the rule records (`rulesets`), moves and
their notation (`moves`, `notation`), FEN (`fen`), attacks (`attacks`), move generation and
making (`movegen`), game status and perft (`status`), and the `Game` facade (`game`)."""
