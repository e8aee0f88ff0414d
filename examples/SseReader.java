/*
 * A reader of the engine's lifecycle events over server-sent events, on Java's standard library alone
 * (java.net.http, Java 17).
 *
 * It follows the firm's stream (GET /v1/events) from the start of the log, prints one line per event (its
 * cursor, type and external id), and when the connection drops it reconnects with the last cursor it got
 * as Last-Event-ID, so that it misses nothing. The engine delivers at least once: a consumer skips an
 * event id it has already processed. A revoked key ends the stream with an `error` event; the reader then
 * stops (exit 1).
 *
 *   ECA_API=http://127.0.0.1:8080 ECA_API_KEY=eca_... java examples/SseReader.java
 */
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class SseReader {
  private static final Pattern EXTERNAL_ID = Pattern.compile("\"externalId\":\"((?:[^\"\\\\]|\\\\.)*)\"");

  private static String lastId;
  private static long retryMs = 1000;

  public static void main(String[] args) throws InterruptedException {
    String api = System.getenv().getOrDefault("ECA_API", "http://127.0.0.1:8080");
    String key = System.getenv("ECA_API_KEY");
    if (key == null || key.isEmpty()) {
      System.err.println("ECA_API_KEY: give an API key of the firm (eca api-keys create)");
      System.exit(2);
    }
    HttpClient http = HttpClient.newHttpClient();
    while (true) {
      HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(api + "/v1/events" + (lastId == null ? "?after=start" : "")))
          .header("Authorization", "Bearer " + key)
          .header("Accept", "text/event-stream");
      if (lastId != null) request.header("Last-Event-ID", lastId);
      try {
        HttpResponse<InputStream> response = http.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
        if (response.statusCode() != 200) {
          String body = new String(response.body().readAllBytes(), StandardCharsets.UTF_8);
          System.err.println("HTTP " + response.statusCode() + ": " + body);
          if (response.statusCode() == 400 || response.statusCode() == 401 || response.statusCode() == 403) System.exit(1);
        } else if (!follow(response.body())) {
          System.exit(1);
        }
      } catch (IOException error) {
        System.err.println("reconnecting after " + lastId + ": " + error.getMessage());
      }
      Thread.sleep(retryMs);
    }
  }

  /** Reads messages until the connection ends (true: reconnect) or an `error` event ends the stream (false). */
  private static boolean follow(InputStream body) throws IOException {
    try (BufferedReader lines = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
      Map<String, String> message = new HashMap<>();
      for (String line; (line = lines.readLine()) != null; ) {
        if (line.isEmpty()) {
          if (!message.isEmpty() && !dispatch(message)) return false;
          message.clear();
        } else if (!line.startsWith(":")) {
          int colon = line.indexOf(':');
          String field = colon < 0 ? line : line.substring(0, colon);
          String value = colon < 0 ? "" : line.substring(colon + 1);
          if (value.startsWith(" ")) value = value.substring(1);
          message.merge(field, value, (before, more) -> before + "\n" + more);
        }
      }
      return true;
    }
  }

  private static boolean dispatch(Map<String, String> message) {
    if ("error".equals(message.get("event"))) {
      System.err.println("the stream ended: " + message.get("data"));
      return false;
    }
    if (message.containsKey("retry")) retryMs = Long.parseLong(message.get("retry"));
    if (message.containsKey("id")) lastId = message.get("id");
    String data = message.get("data");
    if (data != null) {
      Matcher externalId = EXTERNAL_ID.matcher(data);
      System.out.println(lastId + " " + message.get("event") + " " + (externalId.find() ? externalId.group(1) : ""));
      System.out.flush();
    }
    return true;
  }
}
