/* SPDX-License-Identifier: GPL-2.0-only */
/* Display names of functions in profiles (hvb/symname.h). */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <hvb/symname.h>

static bool starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The index just after the ')' or ']' closing the group open at s[i]. */
static size_t skip_group(const char *s, size_t i)
{
    char open = s[i], close = open == '(' ? ')' : ']';
    int depth = 0;

    for ( ; s[i]; i++ )
    {
        if ( s[i] == open )
            depth++;
        else if ( s[i] == close && --depth == 0 )
            return i + 1;
    }
    return i;
}

/* Shorten demangled @d into @out (as long as @d at least). */
static void shorten(const char *d, char *out)
{
    size_t i = 0, o = 0;

    while ( d[i] )
    {
        char prev = o ? out[o - 1] : ' ';

        if ( starts(d + i, "(anonymous namespace)") )
        {
            memcpy(out + o, "(anon)", 6);
            o += 6;
            i += strlen("(anonymous namespace)");
        }
        else if ( starts(d + i, "[abi:") || starts(d + i, " [clone ") )
            i = skip_group(d, d[i] == ' ' ? i + 1 : i);
        else if ( d[i] == '(' && o >= 8 &&
                  strncmp(out + o - 8, "operator", 8) == 0 )
        {
            out[o++] = d[i++]; /* operator() */
        }
        else if ( d[i] == '(' && (isalnum((unsigned char)prev) || prev == '_' ||
                                  prev == '>' || prev == '}' || prev == ')') )
        {
            /* A parameter list, then its qualifiers. */
            i = skip_group(d, i);
            for ( ;; )
            {
                if ( starts(d + i, " const") )
                    i += 6;
                else if ( starts(d + i, " volatile") )
                    i += 9;
                else if ( starts(d + i, " &&") )
                    i += 3;
                else if ( starts(d + i, " &") )
                    i += 2;
                else
                    break;
            }
        }
        else
            out[o++] = d[i++];
    }
    out[o] = '\0';
}

char *hvb_symname_pretty(const char *raw)
{
    char *d = raw[0] == '_' && raw[1] == 'Z' ? hvb_cxx_demangle(raw) : NULL;
    char *out, *p;

    if ( d != NULL )
    {
        out = malloc(strlen(d) + 1);
        if ( out != NULL )
            shorten(d, out);
        free(d);
    }
    else
        out = strdup(raw);
    for ( p = out; p && *p; p++ )
        if ( *p == ';' || *p == '\n' || *p == '\r' )
            *p = ':';
    return out;
}
