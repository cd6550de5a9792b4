# type: ignore
"""The HTML report's template (report.html.j2) compiled by jinja2: generated, never edited.

auditor.report.html_writer reads it; `compiled_template` writes it.
"""

JINJA2 = '3.1.6'
SOURCE_SHA256 = '908492e97345bd6ab5fb442751b178a498dda6558c21a1c3e645713bf5df2271'
from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'report.html.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_csp = resolve('csp')
    l_0_view = resolve('view')
    l_0_css = resolve('css')
    l_0_h = resolve('h')
    l_0_diff = resolve('diff')
    l_0_cov = resolve('cov')
    l_0_ext = resolve('ext')
    l_0_js = resolve('js')
    l_0_url = l_0_status = l_0_codechip = l_0_hbars = l_0_codecounts = l_0_fixtable = missing
    try:
        t_1 = environment.filters['join']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'join' found.")
    try:
        t_2 = environment.filters['length']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'length' found.")
    try:
        t_3 = environment.filters['list']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'list' found.")
    try:
        t_4 = environment.filters['lower']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No filter named 'lower' found.")
    try:
        t_5 = environment.filters['min']
    except KeyError:
        @internalcode
        def t_5(*unused):
            raise TemplateRuntimeError("No filter named 'min' found.")
    try:
        t_6 = environment.filters['num']
    except KeyError:
        @internalcode
        def t_6(*unused):
            raise TemplateRuntimeError("No filter named 'num' found.")
    try:
        t_7 = environment.filters['replace']
    except KeyError:
        @internalcode
        def t_7(*unused):
            raise TemplateRuntimeError("No filter named 'replace' found.")
    try:
        t_8 = environment.filters['selectattr']
    except KeyError:
        @internalcode
        def t_8(*unused):
            raise TemplateRuntimeError("No filter named 'selectattr' found.")
    try:
        t_9 = environment.filters['string']
    except KeyError:
        @internalcode
        def t_9(*unused):
            raise TemplateRuntimeError("No filter named 'string' found.")
    try:
        t_10 = environment.tests['none']
    except KeyError:
        @internalcode
        def t_10(*unused):
            raise TemplateRuntimeError("No test named 'none' found.")
    pass
    def macro(l_1_l):
        t_11 = []
        if l_1_l is missing:
            l_1_l = undefined("parameter 'l' was not provided", name='l')
        pass
        if environment.getattr(l_1_l, 'href'):
            pass
            t_11.extend((
                '<a class="url" href="',
                escape(environment.getattr(l_1_l, 'href')),
                '">',
                escape(environment.getattr(l_1_l, 'text')),
                '</a>',
            ))
        else:
            pass
            t_11.extend((
                '<span class="url nolink">',
                escape(environment.getattr(l_1_l, 'text')),
                '</span>',
            ))
        if environment.getattr(l_1_l, 'cut'):
            pass
            t_11.extend((
                '<span class="cut">… ',
                escape(t_6(environment.getattr(l_1_l, 'cut'))),
                ' more characters</span>',
            ))
        return concat(t_11)
    context.exported_vars.add('url')
    context.vars['url'] = l_0_url = Macro(environment, macro, 'url', ('l',), False, False, False, context.eval_ctx.autoescape)
    def macro(l_1_code):
        t_12 = []
        if l_1_code is missing:
            l_1_code = undefined("parameter 'code' was not provided", name='code')
        pass
        if t_10(l_1_code):
            pass
            t_12.append(
                '<span class="muted">no answer</span>',
            )
        else:
            pass
            t_12.extend((
                '<span class="st st-',
                escape(t_9((l_1_code // 100))),
                '">',
                escape(l_1_code),
                '</span>',
            ))
        return concat(t_12)
    context.exported_vars.add('status')
    context.vars['status'] = l_0_status = Macro(environment, macro, 'status', ('code',), False, False, False, context.eval_ctx.autoescape)
    def macro(l_1_row):
        t_13 = []
        if l_1_row is missing:
            l_1_row = undefined("parameter 'row' was not provided", name='row')
        pass
        t_13.extend((
            '<a class="chip code ',
            escape(environment.getattr(environment.getattr(l_1_row, 'severity'), 'value')),
            '" href="#',
            escape(environment.getattr(l_1_row, 'anchor')),
            '">',
            escape(environment.getattr(l_1_row, 'code')),
            '</a>',
        ))
        return concat(t_13)
    context.exported_vars.add('codechip')
    context.vars['codechip'] = l_0_codechip = Macro(environment, macro, 'codechip', ('row',), False, False, False, context.eval_ctx.autoescape)
    def macro(l_1_chart, l_1_label):
        t_14 = []
        if l_1_chart is missing:
            l_1_chart = undefined("parameter 'chart' was not provided", name='chart')
        if l_1_label is missing:
            l_1_label = undefined("parameter 'label' was not provided", name='label')
        pass
        t_14.extend((
            '      <svg viewBox="0 0 ',
            escape(environment.getattr(l_1_chart, 'width')),
            ' ',
            escape(environment.getattr(l_1_chart, 'height')),
            '" role="img" aria-label="',
            escape(l_1_label),
            '">\n',
        ))
        for l_2_bar in environment.getattr(l_1_chart, 'bars'):
            _loop_vars = {}
            pass
            t_14.extend((
                '        <text x="0" y="',
                escape((environment.getattr(l_2_bar, 'y') + 14)),
                '">',
                escape(environment.getattr(l_2_bar, 'label')),
                '</text>\n        <rect class="f-',
                escape(environment.getattr(l_2_bar, 'tone')),
                '" x="',
                escape(environment.getattr(l_1_chart, 'label_width')),
                '" y="',
                escape((environment.getattr(l_2_bar, 'y') + 3)),
                '" width="',
                escape(environment.getattr(l_2_bar, 'width')),
                '" height="14"><title>',
                escape(environment.getattr(l_2_bar, 'label')),
                ': ',
                escape(environment.getattr(l_2_bar, 'count')),
                '</title></rect>\n        <text class="v" x="',
                escape(((environment.getattr(l_1_chart, 'label_width') + environment.getattr(l_2_bar, 'width')) + 5)),
                '" y="',
                escape((environment.getattr(l_2_bar, 'y') + 14)),
                '">',
                escape(environment.getattr(l_2_bar, 'count')),
                '</text>\n',
            ))
        l_2_bar = missing
        t_14.append(
            '      </svg>\n',
        )
        return concat(t_14)
    context.exported_vars.add('hbars')
    context.vars['hbars'] = l_0_hbars = Macro(environment, macro, 'hbars', ('chart', 'label'), False, False, False, context.eval_ctx.autoescape)
    def macro(l_1_counts):
        t_15 = []
        if l_1_counts is missing:
            l_1_counts = undefined("parameter 'counts' was not provided", name='counts')
        pass
        if l_1_counts:
            pass
            t_15.append(
                '<table><tbody>',
            )
            for (l_2_code, l_2_n) in context.call(environment.getattr(l_1_counts, 'items')):
                _loop_vars = {}
                pass
                t_15.extend((
                    '<tr><td><span class="chip ',
                    escape(environment.getattr(environment.getattr(l_2_code, 'severity'), 'value')),
                    '">',
                    escape(environment.getattr(l_2_code, 'value')),
                    '</span></td><td class="n">',
                    escape(t_6(l_2_n)),
                    '</td></tr>',
                ))
            l_2_code = l_2_n = missing
            t_15.append(
                '</tbody></table>\n',
            )
        else:
            pass
            t_15.append(
                '<p class="empty">None.</p>',
            )
        return concat(t_15)
    context.exported_vars.add('codecounts')
    context.vars['codecounts'] = l_0_codecounts = Macro(environment, macro, 'codecounts', ('counts',), False, False, False, context.eval_ctx.autoescape)
    def macro(l_1_rows):
        t_16 = []
        if l_1_rows is missing:
            l_1_rows = undefined("parameter 'rows' was not provided", name='rows')
        pass
        t_16.append(
            '<table>\n      <thead><tr><th>Severity</th><th>Problem</th><th class="n">Count</th><th>How to fix</th></tr></thead>\n      <tbody>\n',
        )
        for l_2_row in l_1_rows:
            _loop_vars = {}
            pass
            t_16.extend((
                '        <tr>\n          <td><span class="chip ',
                escape(environment.getattr(environment.getattr(l_2_row, 'severity'), 'value')),
                '">',
                escape(environment.getattr(environment.getattr(l_2_row, 'severity'), 'value')),
                '</span></td>\n          <td><a href="#',
                escape(environment.getattr(l_2_row, 'anchor')),
                '"><code>',
                escape(environment.getattr(l_2_row, 'code')),
                '</code></a>',
            ))
            if environment.getattr(l_2_row, 'new'):
                pass
                t_16.extend((
                    ' <span class="chip new">new: ',
                    escape(t_6(environment.getattr(l_2_row, 'new'))),
                    '</span>',
                ))
            t_16.extend((
                ' ',
                escape(environment.getattr(l_2_row, 'title')),
            ))
            if environment.getattr(l_2_row, 'search_console'):
                pass
                t_16.extend((
                    '<br><span class="sc">Search Console: ',
                    escape(environment.getattr(l_2_row, 'search_console')),
                    '</span>',
                ))
            t_16.extend((
                '</td>\n          <td class="n">',
                escape(t_6(environment.getattr(l_2_row, 'count'))),
                '</td>\n          <td class="fix">',
                escape(environment.getattr(l_2_row, 'fix')),
                '</td>\n        </tr>\n',
            ))
        l_2_row = missing
        t_16.append(
            '      </tbody>\n    </table>',
        )
        return concat(t_16)
    context.exported_vars.add('fixtable')
    context.vars['fixtable'] = l_0_fixtable = Macro(environment, macro, 'fixtable', ('rows',), False, False, False, context.eval_ctx.autoescape)
    yield '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta http-equiv="Content-Security-Policy" content="'
    yield escape((undefined(name='csp') if l_0_csp is missing else l_0_csp))
    yield '">\n<meta name="referrer" content="no-referrer">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>'
    yield escape(environment.getattr(environment.getattr(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'verdict'), 'outcome'), 'value'))
    yield ' · Sitemap audit of '
    yield escape(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'title'))
    yield '</title>\n<style>'
    yield escape((undefined(name='css') if l_0_css is missing else l_0_css))
    yield '</style>\n</head>\n<body>\n<header class="top">\n  <div class="wrap">\n    <span class="brand">Sitemap audit</span>\n    <h1>'
    yield escape(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'title'))
    yield '</h1>\n    <span class="meta">'
    yield escape(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'generated_at'))
    yield ' · '
    yield escape(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'tool'))
    yield '</span>\n  </div>\n</header>\n<main class="wrap">\n'
    if (not environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'complete')):
        pass
        yield '  <div id="incomplete" class="incomplete" role="alert">Incomplete run: it stopped before the end. Every count below covers only what was read before it stopped.</div>\n'
    yield '  <section id="verdict" class="verdict v-'
    yield escape(t_4(environment.getattr(environment.getattr(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'verdict'), 'outcome'), 'value')))
    yield '">\n    <div class="badge">'
    yield escape(environment.getattr(environment.getattr(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'verdict'), 'outcome'), 'value'))
    yield '</div>\n    <div>\n      <p>'
    yield escape(environment.getattr(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'verdict'), 'text'))
    yield '</p>\n      <p class="sub">Fails on findings of severity <b>'
    yield escape(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'fail_on'))
    yield '</b> and above. Full data: <span class="mono">'
    yield escape(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'json_name'))
    yield '</span></p>\n    </div>\n  </section>\n  <section class="cards" aria-label="Counts">\n'
    for l_1_card in environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'cards'):
        _loop_vars = {}
        pass
        yield '    <div class="card t-'
        yield escape(environment.getattr(l_1_card, 'tone'))
        yield '"><div class="label">'
        yield escape(environment.getattr(l_1_card, 'label'))
        yield '</div><div class="value">'
        yield escape(environment.getattr(l_1_card, 'value'))
        yield '</div><div class="note'
        if environment.getattr(l_1_card, 'alarm'):
            pass
            yield ' alarm'
        yield '">'
        yield escape(environment.getattr(l_1_card, 'note'))
        yield '</div></div>\n'
    l_1_card = missing
    yield '  </section>\n'
    if environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'history'):
        pass
        l_0_h = environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'history')
        context.vars['h'] = l_0_h
        context.exported_vars.add('h')
        yield '  <section id="history">\n    <h2>This run and the site as last known</h2>\n    <p>This run requested <b>'
        yield escape(t_6(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'requested')))
        yield '</b> URL'
        yield escape(('' if (environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'requested') == 1) else 's'))
        if environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'why'):
            pass
            yield ' ('
            l_1_loop = missing
            for (l_1_label, l_1_n), l_1_loop in LoopContext(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'why'), undefined):
                _loop_vars = {}
                pass
                yield escape(t_6(l_1_n))
                yield ' '
                yield escape(l_1_label)
                yield escape((', ' if (not environment.getattr(l_1_loop, 'last')) else cond_expr_undefined("the inline if-expression on line 82 in 'report.html.j2' evaluated to false and no else section was defined.")))
            l_1_loop = l_1_label = l_1_n = missing
            yield ')'
        if environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'not_modified'):
            pass
            yield '; '
            yield escape(t_6(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'not_modified')))
            yield ' answered 304: unchanged, their last verdict confirmed'
        if environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'resumed'):
            pass
            yield '; '
            yield escape(t_6(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'resumed')))
            yield ' were requested by the interrupted run it continued'
        yield '.\n'
        if environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'carried'):
            pass
            yield ' '
            yield escape(t_6(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'carried')))
            yield ' URL'
            yield escape(('' if (environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'carried') == 1) else 's'))
            yield ' not requested carry their last verdict, with its age'
            if environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'stopped_by'):
                pass
                yield ' (the '
                yield escape(('time budget' if (environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'stopped_by') == 'budget_time') else 'budget'))
                yield ' was spent)'
            yield '.'
        if environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'never_checked'):
            pass
            yield ' '
            yield escape(t_6(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'never_checked')))
            yield ' listed URL'
            yield escape(('' if (environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'never_checked') == 1) else 's'))
            yield ' have never been requested yet.'
        yield '</p>\n'
        if environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'max_age_exceeded'):
            pass
            yield '    <p class="alarm">'
            yield escape(t_6(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'max_age_exceeded')))
            yield ' carried verdict'
            yield escape(('' if (environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'max_age_exceeded') == 1) else 's'))
            yield ' '
            yield escape(('is' if (environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'max_age_exceeded') == 1) else 'are'))
            yield ' older than --max-age '
            yield escape(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'max_age_days'))
            yield ': the budget could not request them all (<code>run.max_age_exceeded</code>).</p>\n'
        yield '    <div class="charts">\n      <figure class="panel">\n        <h3>The site as last known</h3>\n        <p>'
        yield escape(t_6(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'known')))
        yield ' URLs with a verdict: '
        yield escape(t_6(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'indexable')))
        yield ' indexable, '
        yield escape(t_6(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'not_indexable')))
        yield ' not indexable'
        if (not t_10(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'oldest_days'))):
            pass
            yield '; the oldest '
            yield escape(t_6(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'oldest_days')))
            yield ' day'
            yield escape(('' if (environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'oldest_days') == 1) else 's'))
            yield ' old'
        yield ". The counts above this section are this run's requests; the JSON report holds every URL with its age (<code>checked_at</code>, <code>carried</code>).</p>\n      </figure>\n"
        if environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'ages'):
            pass
            yield '      <figure class="panel">\n        <h3>Verdicts by age</h3>\n        <svg viewBox="0 0 '
            yield escape(environment.getattr(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'ages'), 'width'))
            yield ' '
            yield escape(environment.getattr(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'ages'), 'height'))
            yield '" role="img" aria-label="Histogram of the verdicts\' ages">\n          <line class="axis" x1="0" x2="'
            yield escape(environment.getattr(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'ages'), 'width'))
            yield '" y1="'
            yield escape(environment.getattr(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'ages'), 'base_y'))
            yield '" y2="'
            yield escape(environment.getattr(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'ages'), 'base_y'))
            yield '"/>\n'
            for l_1_column in environment.getattr(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'ages'), 'columns'):
                _loop_vars = {}
                pass
                yield '          <rect class="f-'
                yield escape(environment.getattr(l_1_column, 'tone'))
                yield '" x="'
                yield escape(environment.getattr(l_1_column, 'x'))
                yield '" y="'
                yield escape(environment.getattr(l_1_column, 'y'))
                yield '" width="'
                yield escape(environment.getattr(l_1_column, 'width'))
                yield '" height="'
                yield escape(environment.getattr(l_1_column, 'height'))
                yield '"><title>'
                yield escape(environment.getattr(l_1_column, 'label'))
                yield ': '
                yield escape(environment.getattr(l_1_column, 'count'))
                yield '</title></rect>\n          <text class="v" x="'
                yield escape((environment.getattr(l_1_column, 'x') + (environment.getattr(l_1_column, 'width') // 2)))
                yield '" y="'
                yield escape((environment.getattr(l_1_column, 'y') - 4))
                yield '" text-anchor="middle">'
                yield escape(environment.getattr(l_1_column, 'count'))
                yield '</text>\n          <text x="'
                yield escape((environment.getattr(l_1_column, 'x') + (environment.getattr(l_1_column, 'width') // 2)))
                yield '" y="'
                yield escape((environment.getattr(environment.getattr((undefined(name='h') if l_0_h is missing else l_0_h), 'ages'), 'base_y') + 16))
                yield '" text-anchor="middle">'
                yield escape(environment.getattr(l_1_column, 'label'))
                yield '</text>\n'
            l_1_column = missing
            yield "        </svg>\n        <figcaption>URLs by the age of their verdict, in days: today's were requested by this run.</figcaption>\n      </figure>\n"
        yield '    </div>\n  </section>\n'
    if environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'diff'):
        pass
        l_0_diff = environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'diff')
        context.vars['diff'] = l_0_diff
        context.exported_vars.add('diff')
        yield '  <section id="changes">\n    <h2>Changes since the baseline</h2>\n    <p class="muted small">Compared with <span class="mono">'
        yield escape(environment.getattr((undefined(name='diff') if l_0_diff is missing else l_0_diff), 'baseline'))
        yield '</span>, URL by URL. A regression is a URL, sitemap or target with a new finding at <b>'
        yield escape(environment.getattr((undefined(name='diff') if l_0_diff is missing else l_0_diff), 'fail_on_new'))
        yield '</b> or above (not accepted), or a URL that became not indexable: each counts once.</p>\n    <div class="panel">\n      <h3>New problems: '
        yield escape(t_6(environment.getattr((undefined(name='diff') if l_0_diff is missing else l_0_diff), 'regressions')))
        yield ' regression'
        yield escape(('' if (environment.getattr((undefined(name='diff') if l_0_diff is missing else l_0_diff), 'regressions') == 1) else 's'))
        yield '</h3>\n'
        if environment.getattr((undefined(name='diff') if l_0_diff is missing else l_0_diff), 'regression_lines'):
            pass
            yield '      <div class="tablebox"><table class="regressions">\n        <thead><tr><th>What regressed</th><th>New</th></tr></thead>\n        <tbody>\n'
            for l_1_line in environment.getattr((undefined(name='diff') if l_0_diff is missing else l_0_diff), 'regression_lines'):
                _loop_vars = {}
                pass
                yield '          <tr><td><span class="chip kind">'
                yield escape(environment.getattr(l_1_line, 'kind'))
                yield '</span> '
                yield escape(context.call((undefined(name='url') if l_0_url is missing else l_0_url), environment.getattr(l_1_line, 'subject'), _loop_vars=_loop_vars))
                yield '</td><td>'
                for l_2_code in environment.getattr(l_1_line, 'codes'):
                    _loop_vars = {}
                    pass
                    yield '<span class="chip '
                    yield escape(environment.getattr(environment.getattr(l_2_code, 'severity'), 'value'))
                    yield '">'
                    yield escape(environment.getattr(l_2_code, 'value'))
                    yield '</span> '
                l_2_code = missing
                if environment.getattr(l_1_line, 'became_not_indexable'):
                    pass
                    yield '<span class="chip error">not indexable: '
                    yield escape(environment.getattr(l_1_line, 'became_not_indexable'))
                    yield '</span>'
                yield '</td></tr>\n'
            l_1_line = missing
            yield '        </tbody>\n      </table></div>\n'
            if (environment.getattr((undefined(name='diff') if l_0_diff is missing else l_0_diff), 'regressions') > t_2(environment.getattr((undefined(name='diff') if l_0_diff is missing else l_0_diff), 'regression_lines'))):
                pass
                yield '<p class="small">The first '
                yield escape(t_6(t_2(environment.getattr((undefined(name='diff') if l_0_diff is missing else l_0_diff), 'regression_lines'))))
                yield ' shown; all are in the JSON report and the JUnit file.</p>'
        else:
            pass
            yield '      <p class="empty">No regression.</p>\n'
        yield '      <div class="charts">\n        <div><h3>New findings</h3>'
        yield escape(context.call((undefined(name='codecounts') if l_0_codecounts is missing else l_0_codecounts), environment.getattr((undefined(name='diff') if l_0_diff is missing else l_0_diff), 'new_codes')))
        yield '</div>\n        <div><h3>Fixed (resolved findings)</h3>'
        yield escape(context.call((undefined(name='codecounts') if l_0_codecounts is missing else l_0_codecounts), environment.getattr((undefined(name='diff') if l_0_diff is missing else l_0_diff), 'resolved_codes')))
        yield '</div>\n        <div><h3>Indexability</h3><p>'
        yield escape(t_6(environment.getattr((undefined(name='diff') if l_0_diff is missing else l_0_diff), 'became_not_indexable')))
        yield ' became not indexable; '
        yield escape(t_6(environment.getattr((undefined(name='diff') if l_0_diff is missing else l_0_diff), 'became_indexable')))
        yield ' became indexable.</p></div>\n      </div>\n'
        if environment.getattr((undefined(name='diff') if l_0_diff is missing else l_0_diff), 'changed'):
            pass
            yield '      <h3>URLs that changed ('
            yield escape(t_6(environment.getattr((undefined(name='diff') if l_0_diff is missing else l_0_diff), 'changed_total')))
            if (environment.getattr((undefined(name='diff') if l_0_diff is missing else l_0_diff), 'changed_total') > t_2(environment.getattr((undefined(name='diff') if l_0_diff is missing else l_0_diff), 'changed'))):
                pass
                yield ', the first '
                yield escape(t_6(t_2(environment.getattr((undefined(name='diff') if l_0_diff is missing else l_0_diff), 'changed'))))
                yield ' shown'
            yield ')</h3>\n      <div class="tablebox"><table class="changed">\n        <thead><tr><th>URL</th><th>What</th><th>Before</th><th>Now</th></tr></thead>\n        <tbody>\n'
            l_1_loop = missing
            for l_1_change, l_1_loop in LoopContext(environment.getattr((undefined(name='diff') if l_0_diff is missing else l_0_diff), 'changed'), undefined):
                _loop_vars = {}
                pass
                l_2_loop = missing
                for l_2_line, l_2_loop in LoopContext(environment.getattr(l_1_change, 'fields'), undefined):
                    _loop_vars = {}
                    pass
                    yield '          <tr'
                    if environment.getattr(l_1_change, 'regression'):
                        pass
                        yield ' class="broken"'
                    yield '>'
                    if environment.getattr(l_2_loop, 'first'):
                        pass
                        yield '<td rowspan="'
                        yield escape(t_2(environment.getattr(l_1_change, 'fields')))
                        yield '">'
                        yield escape(context.call((undefined(name='url') if l_0_url is missing else l_0_url), environment.getattr(l_1_change, 'url'), _loop_vars=_loop_vars))
                        yield '</td>'
                    yield '<td>'
                    yield escape(environment.getattr(l_2_line, 'field'))
                    yield '</td><td>'
                    yield escape(environment.getattr(l_2_line, 'before'))
                    yield '</td><td>'
                    yield escape(environment.getattr(l_2_line, 'after'))
                    yield '</td></tr>\n'
                l_2_loop = l_2_line = missing
            l_1_loop = l_1_change = missing
            yield '        </tbody>\n      </table></div>\n'
        for (l_1_title, l_1_total, l_1_examples, l_1_sign) in [('URLs added', environment.getattr((undefined(name='diff') if l_0_diff is missing else l_0_diff), 'urls_added'), environment.getattr((undefined(name='diff') if l_0_diff is missing else l_0_diff), 'urls_added_examples'), '+'), ('URLs removed', environment.getattr((undefined(name='diff') if l_0_diff is missing else l_0_diff), 'urls_removed'), environment.getattr((undefined(name='diff') if l_0_diff is missing else l_0_diff), 'urls_removed_examples'), '−')]:
            _loop_vars = {}
            pass
            if l_1_examples:
                pass
                yield '      <details class="plain">\n        <summary>'
                yield escape(l_1_title)
                yield ' ('
                yield escape(t_6(l_1_total))
                if (l_1_total > t_2(l_1_examples)):
                    pass
                    yield ', the first '
                    yield escape(t_6(t_2(l_1_examples)))
                    yield ' shown'
                yield ')</summary>\n'
                for l_2_item in l_1_examples:
                    _loop_vars = {}
                    pass
                    yield '<div class="url small">'
                    yield escape(l_1_sign)
                    yield ' '
                    yield escape(l_2_item)
                    yield '</div>'
                l_2_item = missing
                yield '      </details>\n'
        l_1_title = l_1_total = l_1_examples = l_1_sign = missing
        yield '      <details class="plain">\n        <summary>Sitemaps added ('
        yield escape(t_6(environment.getattr((undefined(name='diff') if l_0_diff is missing else l_0_diff), 'sitemaps_added_total')))
        yield ') and removed ('
        yield escape(t_6(environment.getattr((undefined(name='diff') if l_0_diff is missing else l_0_diff), 'sitemaps_removed_total')))
        yield ')</summary>\n'
        for l_1_item in environment.getattr((undefined(name='diff') if l_0_diff is missing else l_0_diff), 'sitemaps_added'):
            _loop_vars = {}
            pass
            yield '<div class="url small">+ '
            yield escape(l_1_item)
            yield '</div>'
        l_1_item = missing
        if (environment.getattr((undefined(name='diff') if l_0_diff is missing else l_0_diff), 'sitemaps_added_total') > t_2(environment.getattr((undefined(name='diff') if l_0_diff is missing else l_0_diff), 'sitemaps_added'))):
            pass
            yield '<p class="small">… and '
            yield escape(t_6((environment.getattr((undefined(name='diff') if l_0_diff is missing else l_0_diff), 'sitemaps_added_total') - t_2(environment.getattr((undefined(name='diff') if l_0_diff is missing else l_0_diff), 'sitemaps_added')))))
            yield ' more added (all in the JSON report)</p>'
        for l_1_item in environment.getattr((undefined(name='diff') if l_0_diff is missing else l_0_diff), 'sitemaps_removed'):
            _loop_vars = {}
            pass
            yield '<div class="url small">− '
            yield escape(l_1_item)
            yield '</div>'
        l_1_item = missing
        if (environment.getattr((undefined(name='diff') if l_0_diff is missing else l_0_diff), 'sitemaps_removed_total') > t_2(environment.getattr((undefined(name='diff') if l_0_diff is missing else l_0_diff), 'sitemaps_removed'))):
            pass
            yield '<p class="small">… and '
            yield escape(t_6((environment.getattr((undefined(name='diff') if l_0_diff is missing else l_0_diff), 'sitemaps_removed_total') - t_2(environment.getattr((undefined(name='diff') if l_0_diff is missing else l_0_diff), 'sitemaps_removed')))))
            yield ' more removed (all in the JSON report)</p>'
        if ((not environment.getattr((undefined(name='diff') if l_0_diff is missing else l_0_diff), 'sitemaps_added')) and (not environment.getattr((undefined(name='diff') if l_0_diff is missing else l_0_diff), 'sitemaps_removed'))):
            pass
            yield '<p class="empty">None added or removed.</p>'
        yield '      </details>\n    </div>\n  </section>\n'
    yield '\n  <nav class="toc" aria-label="Sections">\n'
    if environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'history'):
        pass
        yield '    <a href="#history">This run and the site as last known</a>\n'
    if environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'diff'):
        pass
        yield '    <a href="#changes">Changes since the baseline</a>\n'
    yield '    <a href="#fix-first">Fix these first</a>\n    <a href="#charts">Charts</a>\n    <a href="#sitemaps">Sitemaps</a>\n'
    if environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'coverage'):
        pass
        yield '    <a href="#coverage">Coverage</a>\n'
    if environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'extensions'):
        pass
        yield '    <a href="#extensions">Extensions</a>\n'
    yield '    <a href="#problems">Problem URLs</a>\n    <a href="#run">Run and configuration</a>\n  </nav>\n\n  <section id="fix-first">\n    <h2>Fix these first</h2>\n'
    if environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'fix_first'):
        pass
        yield '    <div class="tablebox">'
        yield escape(context.call((undefined(name='fixtable') if l_0_fixtable is missing else l_0_fixtable), environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'fix_first')[:environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'fix_first_shown')]))
        yield '</div>\n'
        if (t_2(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'fix_first')) > environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'fix_first_shown')):
            pass
            yield '    <details class="plain more">\n      <summary>The other '
            yield escape(t_6((t_2(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'fix_first')) - environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'fix_first_shown'))))
            yield ' codes of this run</summary>\n      <div class="tablebox">'
            yield escape(context.call((undefined(name='fixtable') if l_0_fixtable is missing else l_0_fixtable), environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'fix_first')[environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'fix_first_shown'):]))
            yield '</div>\n    </details>\n'
    else:
        pass
        yield '    <p class="panel empty">Nothing to fix: no finding of any severity.</p>\n'
    yield '  </section>\n\n  <section id="charts" class="charts">\n    <figure class="panel">\n      <h3>URL answers by status class</h3>\n'
    if environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'status_chart'):
        pass
        yield escape(context.call((undefined(name='hbars') if l_0_hbars is missing else l_0_hbars), environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'status_chart'), 'URL answers by status class'))
        yield "\n      <figcaption>Each distinct URL's own answer (a redirect counts as 3xx).</figcaption>\n"
    else:
        pass
        yield '      <p class="empty">No URL was requested (--no-check, or none listed).</p>\n'
    yield '    </figure>\n    <figure class="panel">\n      <h3>Response time</h3>\n'
    if environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'time_chart'):
        pass
        yield '      <svg viewBox="0 0 '
        yield escape(environment.getattr(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'time_chart'), 'width'))
        yield ' '
        yield escape(environment.getattr(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'time_chart'), 'height'))
        yield '" role="img" aria-label="Histogram of response times">\n        <line class="axis" x1="0" x2="'
        yield escape(environment.getattr(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'time_chart'), 'width'))
        yield '" y1="'
        yield escape(environment.getattr(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'time_chart'), 'base_y'))
        yield '" y2="'
        yield escape(environment.getattr(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'time_chart'), 'base_y'))
        yield '"/>\n'
        for l_1_column in environment.getattr(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'time_chart'), 'columns'):
            _loop_vars = {}
            pass
            yield '        <rect class="f-'
            yield escape(environment.getattr(l_1_column, 'tone'))
            yield '" x="'
            yield escape(environment.getattr(l_1_column, 'x'))
            yield '" y="'
            yield escape(environment.getattr(l_1_column, 'y'))
            yield '" width="'
            yield escape(environment.getattr(l_1_column, 'width'))
            yield '" height="'
            yield escape(environment.getattr(l_1_column, 'height'))
            yield '"><title>'
            yield escape(environment.getattr(l_1_column, 'label'))
            yield ': '
            yield escape(environment.getattr(l_1_column, 'count'))
            yield '</title></rect>\n        <text class="v" x="'
            yield escape((environment.getattr(l_1_column, 'x') + (environment.getattr(l_1_column, 'width') // 2)))
            yield '" y="'
            yield escape((environment.getattr(l_1_column, 'y') - 4))
            yield '" text-anchor="middle">'
            yield escape(environment.getattr(l_1_column, 'count'))
            yield '</text>\n        <text x="'
            yield escape((environment.getattr(l_1_column, 'x') + (environment.getattr(l_1_column, 'width') // 2)))
            yield '" y="'
            yield escape((environment.getattr(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'time_chart'), 'base_y') + 16))
            yield '" text-anchor="middle">'
            yield escape(environment.getattr(l_1_column, 'label'))
            yield '</text>\n'
        l_1_column = missing
        yield '      </svg>\n      <figcaption>URLs per response time; each column runs from its label to the next.</figcaption>\n'
    else:
        pass
        yield '      <p class="empty">No response times (no URL was requested).</p>\n'
    yield '    </figure>\n    <figure class="panel">\n      <h3>Most frequent codes</h3>\n'
    if environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'codes_chart'):
        pass
        yield escape(context.call((undefined(name='hbars') if l_0_hbars is missing else l_0_hbars), environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'codes_chart'), 'Findings by code'))
        yield '\n      <figcaption>Findings by code, the ten most frequent.</figcaption>\n'
    else:
        pass
        yield '      <p class="empty">No findings.</p>\n'
    yield '    </figure>\n  </section>\n\n  <section id="sitemaps">\n    <h2>Sitemaps</h2>\n    <p class="cap" id="sitemaps-cap" data-shown="'
    yield escape(t_2(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'sitemaps')))
    yield '" data-total="'
    yield escape(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'sitemaps_total'))
    yield '">'
    yield escape(t_6(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'sitemaps_total')))
    yield ' documents read (robots.txt included)'
    if (environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'sitemaps_total') > t_2(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'sitemaps'))):
        pass
        yield '; the '
        yield escape(t_6(t_2(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'sitemaps'))))
        yield ' shown are capped at '
        yield escape(t_6(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'sitemap_cap')))
        yield ': those with errors first, then in the order read'
    else:
        pass
        yield '; those with errors first'
    yield '.</p>\n'
    if environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'sitemaps'):
        pass
        yield '    <div class="tablebox"><table class="sortable sitemaps">\n      <thead><tr><th data-sort="text">Document</th><th data-sort="num">HTTP</th><th class="n" data-sort="num">Entries</th><th class="n" data-sort="num">Validated</th><th class="n" data-sort="num">Indexable</th><th class="n" data-sort="num">Bad URLs</th><th class="n" data-sort="num">Errors</th><th class="n" data-sort="num">Warnings</th><th>Codes</th></tr></thead>\n      <tbody>\n'
        for l_1_line in environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'sitemaps'):
            _loop_vars = {}
            pass
            yield '        <tr'
            if environment.getattr(l_1_line, 'broken'):
                pass
                yield ' class="broken"'
            yield '>\n          <td class="depth-'
            yield escape(t_5(environment, [environment.getattr(l_1_line, 'depth'), 6]))
            yield '"><span class="chip kind">'
            yield escape(environment.getattr(l_1_line, 'kind'))
            yield '</span> '
            yield escape(context.call((undefined(name='url') if l_0_url is missing else l_0_url), environment.getattr(l_1_line, 'url'), _loop_vars=_loop_vars))
            if environment.getattr(l_1_line, 'parent'):
                pass
                yield '<br><span class="small muted">in '
                yield escape(context.call((undefined(name='url') if l_0_url is missing else l_0_url), environment.getattr(l_1_line, 'parent'), _loop_vars=_loop_vars))
                yield '</span>'
            yield '</td>\n          <td data-value="'
            yield escape((environment.getattr(l_1_line, 'status') or 0))
            yield '">'
            yield escape(context.call((undefined(name='status') if l_0_status is missing else l_0_status), environment.getattr(l_1_line, 'status'), _loop_vars=_loop_vars))
            yield '</td>\n          <td class="n">'
            yield escape(t_6(environment.getattr(l_1_line, 'url_count')))
            yield '</td>\n          <td class="n">'
            if t_10(environment.getattr(l_1_line, 'checked')):
                pass
                yield '<span class="muted">–</span>'
            else:
                pass
                yield escape(t_6(environment.getattr(l_1_line, 'checked')))
            yield '</td>\n          <td class="n" data-value="'
            yield escape((environment.getattr(l_1_line, 'indexable') or 0))
            yield '">'
            if t_10(environment.getattr(l_1_line, 'checked')):
                pass
                yield '<span class="muted">–</span>'
            elif (environment.getattr(l_1_line, 'indexable') < environment.getattr(l_1_line, 'checked')):
                pass
                yield '<b class="st-4">'
                yield escape(t_6(environment.getattr(l_1_line, 'indexable')))
                yield ' of '
                yield escape(t_6(environment.getattr(l_1_line, 'checked')))
                yield '</b>'
            else:
                pass
                yield escape(t_6(environment.getattr(l_1_line, 'indexable')))
                yield ' of '
                yield escape(t_6(environment.getattr(l_1_line, 'checked')))
            yield '</td>\n          <td class="n">'
            if environment.getattr(l_1_line, 'failing'):
                pass
                yield '<b class="st-5">'
                yield escape(t_6(environment.getattr(l_1_line, 'failing')))
                yield '</b>'
            else:
                pass
                yield '0'
            yield '</td>\n          <td class="n">'
            if environment.getattr(l_1_line, 'errors'):
                pass
                yield '<b class="st-5">'
                yield escape(t_6(environment.getattr(l_1_line, 'errors')))
                yield '</b>'
            else:
                pass
                yield '0'
            yield '</td>\n          <td class="n">'
            yield escape(t_6(environment.getattr(l_1_line, 'warnings')))
            yield '</td>\n          <td>'
            for l_2_row in environment.getattr(l_1_line, 'codes'):
                _loop_vars = {}
                pass
                yield escape(context.call((undefined(name='codechip') if l_0_codechip is missing else l_0_codechip), l_2_row, _loop_vars=_loop_vars))
            l_2_row = missing
            if environment.getattr(l_1_line, 'more_codes'):
                pass
                yield '<span class="small muted">+'
                yield escape(environment.getattr(l_1_line, 'more_codes'))
                yield ' more</span>'
            yield '</td>\n        </tr>\n'
        l_1_line = missing
        yield '      </tbody>\n    </table></div>\n'
    else:
        pass
        yield '    <p class="panel empty">No document was read.</p>\n'
    yield '  </section>\n\n'
    if environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'coverage'):
        pass
        l_0_cov = environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'coverage')
        context.vars['cov'] = l_0_cov
        context.exported_vars.add('cov')
        yield '  <section id="coverage">\n    <h2>Coverage: the crawl against the sitemaps</h2>\n    <p class="muted small">The crawl read the site link by link from the home page ('
        yield escape(t_6(environment.getattr((undefined(name='cov') if l_0_cov is missing else l_0_cov), 'crawled')))
        yield ' URLs requested) and held what it found against the URLs the sitemaps list.</p>\n'
        if (not environment.getattr((undefined(name='cov') if l_0_cov is missing else l_0_cov), 'complete')):
            pass
            yield '    <p class="panel alarm" id="coverage-incomplete">The crawl did not cover the site: '
            yield escape(t_1(context.eval_ctx, environment.getattr((undefined(name='cov') if l_0_cov is missing else l_0_cov), 'why_incomplete'), '; '))
            yield '. No listed URL is called an orphan.</p>\n'
        if (not environment.getattr((undefined(name='cov') if l_0_cov is missing else l_0_cov), 'sitemaps_read')):
            pass
            yield '    <p class="panel alarm">Not every sitemap was read whole: no page of a site whose sitemaps were not all read is said to be missing from them.</p>\n'
        yield '    <figure class="venn">\n      <svg viewBox="0 0 420 200" role="img" aria-labelledby="venn-title">\n        <title id="venn-title">'
        yield escape(t_6(environment.getattr((undefined(name='cov') if l_0_cov is missing else l_0_cov), 'crawled_only')))
        yield ' URLs crawled only, '
        yield escape(t_6(environment.getattr((undefined(name='cov') if l_0_cov is missing else l_0_cov), 'both')))
        yield ' crawled and listed, '
        yield escape(t_6(environment.getattr((undefined(name='cov') if l_0_cov is missing else l_0_cov), 'listed_only')))
        yield ' listed only</title>\n        <circle class="venn-crawled" cx="150" cy="100" r="90"/>\n        <circle class="venn-listed" cx="270" cy="100" r="90"/>\n        <text class="venn-label" x="105" y="40" text-anchor="middle">Crawled</text>\n        <text class="venn-label" x="315" y="40" text-anchor="middle">Listed</text>\n        <text class="venn-n" x="100" y="108" text-anchor="middle">'
        yield escape(t_6(environment.getattr((undefined(name='cov') if l_0_cov is missing else l_0_cov), 'crawled_only')))
        yield '</text>\n        <text class="venn-n" x="210" y="108" text-anchor="middle">'
        yield escape(t_6(environment.getattr((undefined(name='cov') if l_0_cov is missing else l_0_cov), 'both')))
        yield '</text>\n        <text class="venn-n" x="320" y="108" text-anchor="middle">'
        yield escape(t_6(environment.getattr((undefined(name='cov') if l_0_cov is missing else l_0_cov), 'listed_only')))
        yield '</text>\n      </svg>\n      <figcaption><b>'
        yield escape(t_6(environment.getattr((undefined(name='cov') if l_0_cov is missing else l_0_cov), 'crawled_only')))
        yield '</b> crawled only (in no sitemap) · <b>'
        yield escape(t_6(environment.getattr((undefined(name='cov') if l_0_cov is missing else l_0_cov), 'both')))
        yield '</b> crawled and listed · <b>'
        yield escape(t_6(environment.getattr((undefined(name='cov') if l_0_cov is missing else l_0_cov), 'listed_only')))
        yield '</b> listed only (the crawl did not request them)</figcaption>\n    </figure>\n'
        for l_1_list in environment.getattr((undefined(name='cov') if l_0_cov is missing else l_0_cov), 'lists'):
            _loop_vars = {}
            pass
            yield '    <h3 id="coverage-'
            yield escape(t_7(context.eval_ctx, environment.getattr(l_1_list, 'code'), '.', '-'))
            yield '"><span class="chip '
            yield escape(environment.getattr(l_1_list, 'severity'))
            yield '">'
            yield escape(environment.getattr(l_1_list, 'code'))
            yield '</span> '
            yield escape(environment.getattr(l_1_list, 'title'))
            yield ' ('
            yield escape(t_6(environment.getattr(l_1_list, 'total')))
            yield ')</h3>\n'
            if environment.getattr(l_1_list, 'urls'):
                pass
                yield '    <ul class="coverage-urls">\n'
                for l_2_item in environment.getattr(l_1_list, 'urls'):
                    _loop_vars = {}
                    pass
                    yield '      <li>'
                    yield escape(context.call((undefined(name='url') if l_0_url is missing else l_0_url), l_2_item, _loop_vars=_loop_vars))
                    yield '</li>\n'
                l_2_item = missing
                yield '    </ul>\n'
                if (environment.getattr(l_1_list, 'total') > t_2(environment.getattr(l_1_list, 'urls'))):
                    pass
                    yield '<p class="small">The first '
                    yield escape(t_6(t_2(environment.getattr(l_1_list, 'urls'))))
                    yield ' shown; every one is in the JSON report and the CSV files.</p>'
            else:
                pass
                yield '    <p class="empty">None.</p>\n'
        l_1_list = missing
        yield '  </section>\n'
    yield '\n'
    if environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'extensions'):
        pass
        l_0_ext = environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'extensions')
        context.vars['ext'] = l_0_ext
        context.exported_vars.add('ext')
        yield '  <section id="extensions">\n    <h2>Extensions</h2>\n    <p class="muted small">What the entries say in the sitemap extensions Google reads: hreflang alternates, images, videos and news.</p>\n    <div class="tablebox"><table class="ext-counts">\n      <tbody>\n'
        for (l_1_label, l_1_n) in environment.getattr((undefined(name='ext') if l_0_ext is missing else l_0_ext), 'counts'):
            _loop_vars = {}
            pass
            yield '        <tr><td>'
            yield escape(l_1_label)
            yield '</td><td class="n">'
            yield escape(t_6(l_1_n))
            yield '</td></tr>\n'
        l_1_label = l_1_n = missing
        yield '      </tbody>\n    </table></div>\n'
        if environment.getattr((undefined(name='ext') if l_0_ext is missing else l_0_ext), 'clusters'):
            pass
            yield '    <h3>hreflang clusters missing return links</h3>\n    <p class="cap" id="clusters-cap" data-shown="'
            yield escape(environment.getattr((undefined(name='ext') if l_0_ext is missing else l_0_ext), 'shown_returns'))
            yield '" data-total="'
            yield escape(environment.getattr((undefined(name='ext') if l_0_ext is missing else l_0_ext), 'missing_returns'))
            yield '">Google ignores an alternate that does not link back. '
            if (environment.getattr((undefined(name='ext') if l_0_ext is missing else l_0_ext), 'missing_returns') > environment.getattr((undefined(name='ext') if l_0_ext is missing else l_0_ext), 'shown_returns')):
                pass
                yield 'The first '
                yield escape(t_6(environment.getattr((undefined(name='ext') if l_0_ext is missing else l_0_ext), 'shown_returns')))
                yield ' of '
                yield escape(t_6(environment.getattr((undefined(name='ext') if l_0_ext is missing else l_0_ext), 'missing_returns')))
                yield " missing return links, by page; every one is in the JSON report's <code>run_findings</code>."
            elif (environment.getattr((undefined(name='ext') if l_0_ext is missing else l_0_ext), 'missing_returns') == 1):
                pass
                yield 'The one missing return link:'
            else:
                pass
                yield 'All '
                yield escape(t_6(environment.getattr((undefined(name='ext') if l_0_ext is missing else l_0_ext), 'missing_returns')))
                yield ' missing return links, by page.'
            yield '</p>\n    <div class="tablebox"><table class="clusters">\n      <thead><tr><th>Page</th><th>Names, without a link back</th><th>Listed in</th></tr></thead>\n      <tbody>\n'
            l_1_loop = missing
            for l_1_line, l_1_loop in LoopContext(environment.getattr((undefined(name='ext') if l_0_ext is missing else l_0_ext), 'clusters'), undefined):
                _loop_vars = {}
                pass
                yield '        <tr>\n          <td>'
                yield escape(context.call((undefined(name='url') if l_0_url is missing else l_0_url), environment.getattr(l_1_line, 'page'), _loop_vars=_loop_vars))
                yield '</td>\n          <td>'
                l_2_loop = missing
                for l_2_missing, l_2_loop in LoopContext(environment.getattr(l_1_line, 'unanswered'), undefined):
                    _loop_vars = {}
                    pass
                    yield '<span class="chip kind">'
                    yield escape(environment.getattr(l_2_missing, 'hreflang'))
                    yield '</span> '
                    yield escape(context.call((undefined(name='url') if l_0_url is missing else l_0_url), environment.getattr(l_2_missing, 'alternate'), _loop_vars=_loop_vars))
                    if (not environment.getattr(l_2_loop, 'last')):
                        pass
                        yield '<br>'
                l_2_loop = l_2_missing = missing
                yield '</td>\n          <td>'
                if environment.getattr(l_1_line, 'sitemap'):
                    pass
                    yield escape(context.call((undefined(name='url') if l_0_url is missing else l_0_url), environment.getattr(l_1_line, 'sitemap'), _loop_vars=_loop_vars))
                else:
                    pass
                    yield '<span class="muted">–</span>'
                yield '</td>\n        </tr>\n'
            l_1_loop = l_1_line = missing
            yield '      </tbody>\n    </table></div>\n'
        if environment.getattr((undefined(name='ext') if l_0_ext is missing else l_0_ext), 'codes'):
            pass
            yield '    <h3>Extension findings</h3>\n    <div class="tablebox">'
            yield escape(context.call((undefined(name='fixtable') if l_0_fixtable is missing else l_0_fixtable), environment.getattr((undefined(name='ext') if l_0_ext is missing else l_0_ext), 'codes')))
            yield '</div>\n'
        else:
            pass
            yield '    <p class="panel empty">No finding in the extensions.</p>\n'
        yield '  </section>\n'
    yield '\n  <section id="problems">\n    <h2>Problem URLs by code</h2>\n    <p class="muted small">Each code lists the first '
    yield escape(t_6(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'examples_cap')))
    yield ' findings found; every finding is counted and every one is in the JSON report.</p>\n    <div class="groups">\n'
    l_1_loop = missing
    t_17 = 1
    for l_1_group, l_1_loop in LoopContext(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'problems'), undefined):
        _loop_vars = {}
        pass
        yield '      <details class="group '
        yield escape(environment.getattr(environment.getattr(environment.getattr(l_1_group, 'row'), 'severity'), 'value'))
        yield '" id="'
        yield escape(environment.getattr(environment.getattr(l_1_group, 'row'), 'anchor'))
        yield '" data-severity="'
        yield escape(environment.getattr(environment.getattr(environment.getattr(l_1_group, 'row'), 'severity'), 'value'))
        yield '"'
        if ((environment.getattr(environment.getattr(environment.getattr(l_1_group, 'row'), 'severity'), 'value') == 'error') and (environment.getattr(l_1_loop, 'index') <= environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'groups_open'))):
            pass
            yield ' open'
        yield '>\n        <summary><span class="chip '
        yield escape(environment.getattr(environment.getattr(environment.getattr(l_1_group, 'row'), 'severity'), 'value'))
        yield '">'
        yield escape(environment.getattr(environment.getattr(environment.getattr(l_1_group, 'row'), 'severity'), 'value'))
        yield '</span> <code>'
        yield escape(environment.getattr(environment.getattr(l_1_group, 'row'), 'code'))
        yield '</code> <span>'
        yield escape(environment.getattr(environment.getattr(l_1_group, 'row'), 'title'))
        yield '</span><span class="count">'
        yield escape(t_6(environment.getattr(l_1_group, 'total')))
        yield '</span></summary>\n        <div class="body">\n          <p><b>Fix:</b> '
        yield escape(environment.getattr(environment.getattr(l_1_group, 'row'), 'fix'))
        if environment.getattr(environment.getattr(l_1_group, 'row'), 'search_console'):
            pass
            yield ' <span class="sc">· Search Console: '
            yield escape(environment.getattr(environment.getattr(l_1_group, 'row'), 'search_console'))
            yield '</span>'
        yield '</p>\n          <p class="cap" data-code="'
        yield escape(environment.getattr(environment.getattr(l_1_group, 'row'), 'code'))
        yield '" data-shown="'
        yield escape(t_2(environment.getattr(l_1_group, 'examples')))
        yield '" data-total="'
        yield escape(environment.getattr(l_1_group, 'total'))
        yield '">'
        if (environment.getattr(l_1_group, 'total') > t_2(environment.getattr(l_1_group, 'examples'))):
            pass
            yield 'Showing the first '
            yield escape(t_6(t_2(environment.getattr(l_1_group, 'examples'))))
            yield ' of '
            yield escape(t_6(environment.getattr(l_1_group, 'total')))
            yield ' (at most '
            yield escape(t_6(environment.getattr(l_1_group, 'cap')))
            yield ' per code).'
        else:
            pass
            yield 'All '
            yield escape(t_6(environment.getattr(l_1_group, 'total')))
            yield ' shown.'
        yield '</p>\n'
        if environment.getattr(l_1_group, 'examples'):
            pass
            yield '          <div class="tablebox"><table>\n            <thead><tr><th>URL'
            if t_3(context.eval_ctx, t_8(context, environment.getattr(l_1_group, 'examples'), 'chain')):
                pass
                yield ' and redirects'
            yield '</th><th>HTTP</th><th>Indexability</th><th>Listed in</th><th>Finding</th></tr></thead>\n            <tbody>\n'
            l_2_loop = missing
            for l_2_example, l_2_loop in LoopContext(environment.getattr(l_1_group, 'examples'), undefined):
                _loop_vars = {}
                pass
                yield '              <tr'
                if environment.getattr(l_2_example, 'indexability'):
                    pass
                    yield ' data-indexability="'
                    yield escape(environment.getattr(l_2_example, 'indexability'))
                    yield '"'
                yield '>\n                <td class="chain">'
                if environment.getattr(l_2_example, 'chain'):
                    pass
                    l_3_loop = missing
                    for l_3_step, l_3_loop in LoopContext(environment.getattr(l_2_example, 'chain'), undefined):
                        _loop_vars = {}
                        pass
                        yield escape(context.call((undefined(name='url') if l_0_url is missing else l_0_url), environment.getattr(l_3_step, 'url'), _loop_vars=_loop_vars))
                        if (not environment.getattr(l_3_loop, 'last')):
                            pass
                            yield ' <span class="arrow">→ <span class="st st-'
                            yield escape(t_9(((environment.getattr(l_3_step, 'status') or 0) // 100)))
                            yield '">'
                            yield escape(environment.getattr(l_3_step, 'status'))
                            yield '</span> →</span> '
                        elif environment.getattr(l_3_step, 'status'):
                            pass
                            yield ' <span class="arrow">('
                            yield escape(context.call((undefined(name='status') if l_0_status is missing else l_0_status), environment.getattr(l_3_step, 'status'), _loop_vars=_loop_vars))
                            yield ')</span>'
                        if (environment.getattr(l_2_example, 'hops_left_out') and (environment.getattr(l_3_loop, 'revindex') == 2)):
                            pass
                            yield ' <span class="arrow">… '
                            yield escape(environment.getattr(l_2_example, 'hops_left_out'))
                            yield ' more hops …</span> '
                    l_3_loop = l_3_step = missing
                elif environment.getattr(l_2_example, 'url'):
                    pass
                    yield escape(context.call((undefined(name='url') if l_0_url is missing else l_0_url), environment.getattr(l_2_example, 'url'), _loop_vars=_loop_vars))
                else:
                    pass
                    yield '<span class="muted">–</span>'
                yield '</td>\n                <td>'
                yield escape(context.call((undefined(name='status') if l_0_status is missing else l_0_status), environment.getattr(l_2_example, 'status'), _loop_vars=_loop_vars))
                yield '</td>\n                <td>'
                if (environment.getattr(l_2_example, 'indexability') == 'not_indexable'):
                    pass
                    yield '<span class="chip warning">'
                    yield escape(environment.getattr(l_2_example, 'indexability_label'))
                    yield '</span>'
                elif environment.getattr(l_2_example, 'indexability'):
                    pass
                    yield escape(environment.getattr(l_2_example, 'indexability_label'))
                else:
                    pass
                    yield '<span class="muted">–</span>'
                yield '</td>\n                <td>'
                if environment.getattr(l_2_example, 'sitemap'):
                    pass
                    yield escape(context.call((undefined(name='url') if l_0_url is missing else l_0_url), environment.getattr(l_2_example, 'sitemap'), _loop_vars=_loop_vars))
                else:
                    pass
                    yield '<span class="muted">–</span>'
                yield '</td>\n                <td>'
                yield escape(environment.getattr(l_2_example, 'message'))
                if environment.getattr(l_2_example, 'detail'):
                    pass
                    yield '<br><span class="small muted">'
                    yield escape(environment.getattr(l_2_example, 'detail'))
                    yield '</span>'
                yield '</td>\n              </tr>\n'
            l_2_loop = l_2_example = missing
            yield '            </tbody>\n          </table></div>\n'
        yield '        </div>\n      </details>\n'
        t_17 = 0
    l_1_loop = l_1_group = missing
    if t_17:
        pass
        yield '      <p class="panel empty">No problem found.</p>\n'
    yield '    </div>\n  </section>\n\n  <section id="run">\n    <h2>Run and configuration</h2>\n    <div class="panel">\n'
    l_1_loop = missing
    for l_1_target, l_1_loop in LoopContext(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'targets'), undefined):
        _loop_vars = {}
        pass
        yield '      <p><b>Target</b> <span class="mono">'
        yield escape(environment.getattr(l_1_target, 'input'))
        yield '</span> → '
        yield escape(context.call((undefined(name='url') if l_0_url is missing else l_0_url), environment.getattr(l_1_target, 'url'), _loop_vars=_loop_vars))
        if environment.getattr(l_1_target, 'robots'):
            pass
            yield '<br><span class="small">robots.txt: '
            yield escape(context.call((undefined(name='url') if l_0_url is missing else l_0_url), environment.getattr(l_1_target, 'robots'), _loop_vars=_loop_vars))
            yield '</span>'
        if environment.getattr(l_1_target, 'sitemaps'):
            pass
            yield '<br><span class="small">Sitemaps found: '
            l_2_loop = missing
            for l_2_item, l_2_loop in LoopContext(environment.getattr(l_1_target, 'sitemaps'), undefined):
                _loop_vars = {}
                pass
                yield escape(context.call((undefined(name='url') if l_0_url is missing else l_0_url), l_2_item, _loop_vars=_loop_vars))
                if (not environment.getattr(l_2_loop, 'last')):
                    pass
                    yield ', '
            l_2_loop = l_2_item = missing
            if environment.getattr(l_1_target, 'more_sitemaps'):
                pass
                yield ' and '
                yield escape(t_6(environment.getattr(l_1_target, 'more_sitemaps')))
                yield ' more'
            yield '</span>'
        yield '</p>\n'
    l_1_loop = l_1_target = missing
    yield '      <details class="plain">\n        <summary>Configuration (header values redacted)</summary>\n        <dl class="config">\n'
    for (l_1_key, l_1_value) in environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'config'):
        _loop_vars = {}
        pass
        yield '          <dt>'
        yield escape(l_1_key)
        yield '</dt><dd>'
        yield escape(l_1_value)
        yield '</dd>\n'
    l_1_key = l_1_value = missing
    yield '        </dl>\n      </details>\n    </div>\n  </section>\n</main>\n<footer class="wrap">Generated by '
    yield escape(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'tool'))
    yield ' on '
    yield escape(environment.getattr((undefined(name='view') if l_0_view is missing else l_0_view), 'generated_at'))
    yield '. This page is self-contained: it loads nothing, and reads fully without JavaScript.</footer>\n<script>'
    yield escape((undefined(name='js') if l_0_js is missing else l_0_js))
    yield '</script>\n</body>\n</html>'

blocks = {}
debug_info = '4=80&5=85&6=98&7=101&9=111&10=116&11=125&13=133&14=140&16=150&17=159&18=166&19=171&20=175&21=187&25=201&26=206&29=235&33=243&35=248&36=252&37=277&38=279&48=290&51=292&52=296&58=298&59=300&63=304&66=308&67=310&69=312&70=314&74=318&75=322&78=336&79=338&82=342&83=369&84=382&85=390&86=393&91=402&93=416&96=419&97=423&98=429&99=433&100=447&101=453&110=462&111=464&114=468&116=472&117=476&121=479&122=483&126=504&131=513&132=515&133=517&135=521&136=524&140=532&141=536&142=540&148=561&149=564&151=567&152=576&157=588&158=592&159=599&160=604&161=611&162=616&169=621&170=624&174=628&175=631&182=635&183=638&184=640&186=643&187=645&198=651&199=653&207=659&208=662&209=666&210=672&211=676&212=690&213=696&223=708&224=710&234=716&235=733&239=736&240=740&241=744&242=755&243=759&244=761&245=768&246=786&247=795&248=804&249=806&259=823&260=825&263=829&264=831&265=834&267=836&272=840&277=846&278=848&279=850&281=852&283=858&284=862&285=872&287=875&289=883&297=894&298=896&304=900&305=904&309=910&311=913&315=934&317=938&318=941&319=953&325=962&327=965&336=972&338=976&339=980&340=990&342=1000&343=1007&344=1028&346=1031&348=1036&349=1040&350=1046&351=1078&352=1080&353=1092&354=1099&371=1116&372=1120&373=1128&378=1149&379=1153&386=1159&387=1163'
