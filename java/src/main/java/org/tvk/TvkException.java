package org.tvk;

/** An error from tvk's native code (a bad model file, an unsupported op, a wrong input, no
 *  Vulkan device), carrying its message. The module stays usable afterwards. */
public class TvkException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public TvkException(String message) {
    super(message);
  }
}
