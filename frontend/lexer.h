/* lexer.h: tokens of the .pipe language. */
#ifndef PT_LEXER_H
#define PT_LEXER_H

#include <stdbool.h>
#include <stdint.h>

#include "diag.h"

#define PT_TOKENS(X) \
	X(EOF, "end of file") X(IDENT, "name") X(INT, "integer") X(FLOAT, "number") \
	X(LPAREN, "'('") X(RPAREN, "')'") X(LBRACK, "'['") X(RBRACK, "']'") \
	X(LBRACE, "'{'") X(RBRACE, "'}'") X(COMMA, "','") X(COLON, "':'") \
	X(DOTDOT, "'..'") X(ARROW, "'->'") X(ASSIGN, "'='") X(QUESTION, "'?'") \
	X(PLUS, "'+'") X(MINUS, "'-'") X(STAR, "'*'") X(SLASH, "'/'") X(PERCENT, "'%'") \
	X(LT, "'<'") X(LE, "'<='") X(GT, "'>'") X(GE, "'>='") X(EQ, "'=='") X(NE, "'!='") \
	X(ANDAND, "'&&'") X(OROR, "'||'") X(NOT, "'!'") X(TILDE, "'~'") \
	X(AMP, "'&'") X(BAR, "'|'") X(CARET, "'^'") X(SHL, "'<<'") X(SHR, "'>>'") \
	X(PLUSEQ, "'+='") X(STAREQ, "'*='") X(ANDEQ, "'&&='") X(OREQ, "'||='")

#define PT_TOK_ENUM_(n, s) PT_T_##n,
typedef enum pt_tok_kind { PT_TOKENS(PT_TOK_ENUM_) PT_T_COUNT } pt_tok_kind;
#undef PT_TOK_ENUM_

typedef struct pt_token {
	pt_tok_kind kind;
	pt_loc loc;
	const char *start;      /* into the source text */
	int len;
	bool bol;               /* first token on its line */
	int64_t ival;
	double fval;
} pt_token;

/* The longest name (the parser's buffers hold it and a family suffix). */
#define PT_MAX_NAME_LEN 200

const char *pt_tok_kind_name(pt_tok_kind k);

/* Splits src into tokens (ending with EOF).  Returns false after reporting
 * the first lexical error.  *toks is owned by the caller (free). */
bool pt_lex(pt_diag *d, const pt_source *src, pt_token **toks, int *ntoks);

/* Whether the token's text equals s. */
bool pt_tok_is(const pt_token *t, const char *s);

#endif
