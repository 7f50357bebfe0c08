package dev.berth.core;

import java.util.regex.Pattern;

/**
 * The names a job's environment (Variable_List) may hold: a letter or underscore, then letters,
 * digits and underscores, as POSIX shells take them. Names such as bash's exported functions
 * ({@code BASH_FUNC_module%%}) are not among them.
 */
public final class VariableNames {
  private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  private VariableNames() {}

  public static boolean isName(String name) {
    return NAME.matcher(name).matches();
  }
}
