package org.capsched.yarn.web;

import org.apache.hadoop.yarn.server.resourcemanager.webapp.RmView;
import org.apache.hadoop.yarn.webapp.SubView;
import org.apache.hadoop.yarn.webapp.hamlet2.Hamlet;

/**
 * The RM web UI's Scheduler page ({@code /cluster/scheduler}) for RustCapacityScheduler:
 * the RM's own layout (navigation, cluster metrics, the applications table) with the
 * queue tree in the middle. The RM renders it when
 * {@code yarn.http.rmwebapp.scheduler.page.class} names it, which the scheduler sets when
 * the operator has not (see {@link WebHooks}).
 */
public class RustSchedulerPage extends RmView {

  @Override
  protected void preHead(Hamlet.HTML<__> html) {
    // The RM's applications table, as on its other pages.
    super.preHead(html);
    setTitle("Capacity Scheduler (RustCapacityScheduler)");
  }

  @Override
  protected void postHead(Hamlet.HTML<__> html) {
    html.style().$type("text/css").__(
        // The RM's tables are as wide as its metrics table; these keep to their content.
        "#queues { width: auto; border-collapse: collapse; margin-bottom: 1em }",
        "#queues th, #queues td { padding: 2px 8px; text-align: left; white-space: nowrap }",
        "#queues td.bar { width: 24em; min-width: 24em }",
        "#queues tr.queue:hover { background: #eef }",
        "#queues tr.queue { cursor: pointer }",
        ".qbar { position: relative; display: block; height: 1.2em; background: #fff;"
            + " border: 1px solid #aaa }",
        ".qbar span { position: absolute; top: 0; bottom: 0; left: 0 }",
        ".qbar .max { background: #e8e8e8 }",
        ".qbar .cap { background: #b5d6f5 }",
        ".qbar .used { background: #5a5; opacity: 0.8 }",
        ".qbar .over { background: #e8a33d; opacity: 0.8 }",
        ".qlegend span { display: inline-block; width: 1em; height: 1em; margin: 0 0.3em 0 1em;"
            + " vertical-align: middle; border: 1px solid #aaa }",
        ".qstate-STOPPED { color: #a00 } .qstate-DRAINING { color: #a60 }",
        "div.leaf { margin: 0.5em 0 1em 0 }",
        "table.qinfo { width: auto; margin: 0.3em 0 0.5em 1em }",
        "table.qinfo th { text-align: left; padding-right: 1.5em; font-weight: normal }",
        "table.users { width: auto; margin: 0 0 0.5em 1em }",
        "table.users th, table.users td { padding: 2px 10px; text-align: left }",
        "#health table { width: auto; border-collapse: collapse; margin: 0.3em 0 0.8em 1em }",
        "#health th { background: #e8e8e8; font-weight: normal }",
        "#health th, #health td { padding: 2px 10px; text-align: left; white-space: nowrap;"
            + " border: 1px solid #ddd }")
        .__()
        .script().$type("text/javascript").__(
            // Clicking a queue shows its applications (and its descendants') in the RM's
            // applications table, whose queue column is the sixth.
            "$(function() {",
            "  $('#queues tr.queue').click(function() {",
            "    var q = this.id.substring(2);",
            "    var leaf = $(this).hasClass('leaf');",
            "    var re = '^' + q.replace(/\\./g, '\\\\.') + (leaf ? '$' : '(\\\\.|$)');",
            "    $('#apps').dataTable().fnFilter(re, 5, true);",
            "  });",
            "});")
        .__();
  }

  @Override
  protected Class<? extends SubView> content() {
    return RustSchedulerBlock.class;
  }
}
