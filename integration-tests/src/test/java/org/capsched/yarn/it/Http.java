package org.capsched.yarn.it;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;

/** Plain HTTP GETs against a daemon's web server, as a dashboard or a curl would send them. */
final class Http {
  private Http() {
  }

  /** A status code and the body, whatever the code. */
  static final class Response {
    final int code;
    final String body;

    Response(int code, String body) {
      this.code = code;
      this.body = body;
    }
  }

  static Response get(String url, String accept) throws IOException {
    HttpURLConnection c = (HttpURLConnection) new URL(url).openConnection();
    c.setConnectTimeout(5_000);
    c.setReadTimeout(30_000);
    c.setRequestProperty("Accept", accept);
    int code = c.getResponseCode();
    InputStream in = code >= 400 ? c.getErrorStream() : c.getInputStream();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    if (in != null) {
      try (InputStream body = in) {
        byte[] buf = new byte[8192];
        for (int n; (n = body.read(buf)) > 0; ) {
          out.write(buf, 0, n);
        }
      }
    }
    return new Response(code, new String(out.toByteArray(), StandardCharsets.UTF_8));
  }
}
