package dev.berth.tools.qmgr;

/** A directive qmgr cannot read: what is wrong, and the offset in the directive where it is. */
final class QmgrSyntaxException extends Exception {
  private static final long serialVersionUID = 1L;

  private final int position;

  QmgrSyntaxException(String message, int position) {
    super(message);
    this.position = position;
  }

  int position() {
    return position;
  }

  /**
   * The report Torque's qmgr gives, with a more precise message: {@code qmgr: message}, the
   * directive, and a caret under the offending character (tabs kept so the caret lines up).
   */
  String report(String directive) {
    int at = Math.min(Math.max(position, 0), directive.length());
    StringBuilder pad = new StringBuilder();
    for (int i = 0; i < at; i++) {
      pad.append(directive.charAt(i) == '\t' ? '\t' : ' ');
    }
    return "qmgr: " + getMessage() + "\n" + directive + "\n" + pad + "^\n";
  }
}
