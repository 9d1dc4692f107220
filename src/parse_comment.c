/* parse_comment.c - comment attachment.
 *
 * The lexer queues comments with their positions; the parser gives each
 * to the statement the reference parser would (see the notes in DESIGN of
 * README): a simple statement takes those above it and on its line, a
 * compound statement those through its header line, docstrings and the
 * comments of statements that produce no IR (pass, ...) are carried to the
 * next statement, and a block's tail comments are dropped.
 */
#include <string.h>

#include "parse_int.h"

/* The comment rules of the reference parser (see the notes in DESIGN of
 * README): each helper visits the untaken comments up to a line bound. */
typedef bool (*CommentPred)(const Comment *c, const int *arg);

static void comments_visit(Parser *p, int maxline, CommentPred pred, const int *arg, PtrVec *out)
{
	Lexer *lx = &p->lx;
	for (size_t i = lx->comment_head; i < lx->ncomments; i++) {
		Comment *c = &lx->comments[i];
		if (c->line > maxline)
			break;
		if (c->taken || !pred(c, arg))
			continue;
		c->taken = true;
		if (out)
			vec_push(out, (void *)c->text);
	}
	lex_comments_gc(lx);
}

static bool pred_all(const Comment *c, const int *arg) { (void)c; (void)arg; return true; }

/* arg: { stmt line, header end line, body column } */
static bool pred_compound(const Comment *c, const int *arg)
{
	return (c->line < arg[0] && c->col < arg[2]) || (c->line >= arg[0] && c->line <= arg[1]);
}

/* arg: { line, col }: stale comments left above a later sibling, deeper than it */
static bool pred_stale(const Comment *c, const int *arg)
{
	return c->line < arg[0] && c->col > arg[1];
}

/* arg: { first line, first col }: tail comments of a block */
static bool pred_tail(const Comment *c, const int *arg)
{
	return c->line >= arg[0] && c->col >= arg[1];
}

void pp_drop_stale_comments(Parser *p, int line, int col)
{
	int arg[2] = { line, col };
	comments_visit(p, line - 1, pred_stale, arg, NULL);
}

void pp_drop_tail_comments(Parser *p, int upper, int line, int col)
{
	int first[2] = { line, col };
	comments_visit(p, upper, pred_tail, first, NULL);
}

/* Leading comments of a simple statement ending on `end_line`. */
void pp_take_comments(Parser *p, int end_line, PtrVec *out)
{
	comments_visit(p, end_line, pred_all, NULL, out);
}

void pp_drop_comments_before_line(Parser *p, int line)
{
	comments_visit(p, line - 1, pred_all, NULL, NULL);
}

/* Carried comment lines (docstrings, pass) come first. */
void pp_take_carried(Parser *p, PtrVec *out)
{
	for (size_t i = 0; i < p->carried.len; i++)
		vec_push(out, p->carried.items[i]);
	p->carried.len = 0;
}

void pp_attach(Parser *p, Stmt *s, PtrVec *cm)
{
	if (!cm->cap) { /* no comment (nearly every statement): nothing to copy or give back */
		s->comments = NULL;
		s->ncomments = 0;
		return;
	}
	s->comments = (const char **)vec_finish(p->a, cm, &s->ncomments);
}

/* Comment lines of a docstring (str.splitlines(), not dedented). */
void pp_docstring_lines(Parser *p, const char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		size_t j = i;
		while (j < n && s[j] != '\n' && s[j] != '\r')
			j++;
		/* the reference reads the source through textwrap.dedent, which
		 * empties source lines of only spaces and tabs (not the first
		 * and last, which hold the quotes) */
		size_t k = i;
		while (k < j && (s[k] == ' ' || s[k] == '\t'))
			k++;
		bool blank = k == j && i > 0 && j < n;
		vec_push(&p->carried, arena_strndup(p->a, s + i, blank ? 0 : j - i));
		if (j < n && s[j] == '\r' && j + 1 < n && s[j + 1] == '\n')
			j++;
		i = j + 1;
	}
}

/* Header comments (through the ':' line) belong to the compound statement. */
void pp_header_end(Parser *p, Stmt *s, PtrVec *cm)
{
	Token colon = expect_op_tok(p, ":");
	const Token *nl = peek(p);
	if (nl->kind != TK_NEWLINE)
		PERR_AT(p, nl, "expected a new line after ':' (one-line bodies are not supported)");
	skip(p);
	const Token *ind = peek(p);
	int arg[3] = { s->pos.line, colon.line, ind->kind == TK_INDENT ? ind->col : 1 };
	comments_visit(p, colon.line, pred_compound, arg, cm);
	pp_attach(p, s, cm);
}

