/*
 * A partner firm's program on the Java client generated from docs/openapi.json (okhttp-gson): it reads one
 * application and its events and prints what it saw as one JSON object (test/e2e/contract/java-client.test.ts
 * asserts on it, against a newer server's answers).
 *
 * Usage: java ContractRead BASE_URL REFERENCE
 */
import java.util.ArrayList;
import java.util.List;
import org.eca.client.ApiClient;
import org.eca.client.api.ApplicationsApi;
import org.eca.client.api.EventsApi;
import org.eca.client.model.Application;
import org.eca.client.model.EventPage;
import org.eca.client.model.EventPageEventsInner;

public class ContractRead {
  private static String quote(Object value) {
    if (value == null) return "null";
    StringBuilder out = new StringBuilder("\"");
    for (char c : value.toString().toCharArray()) {
      if (c == '"' || c == '\\') out.append('\\').append(c);
      else if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
      else out.append(c);
    }
    return out.append('"').toString();
  }

  public static void main(String[] args) {
    ApiClient client = new ApiClient();
    client.setBasePath(args[0]);
    client.setBearerToken("contract-test");
    List<String> seen = new ArrayList<>();
    try {
      Application application = new ApplicationsApi(client).getApplication(args[1]);
      seen.add("\"application\":{\"state\":" + quote(application.getLifecycleState())
          + ",\"externalId\":" + quote(application.getExternalId())
          + ",\"done\":" + application.getDone() + "}");
    } catch (Exception error) {
      seen.add("\"applicationError\":" + quote(error));
    }
    try {
      EventPage page = new EventsApi(client).listApplicationEvents(args[1], "start", 100, null);
      List<String> events = new ArrayList<>();
      for (EventPageEventsInner entry : page.getEvents()) {
        events.add("{\"type\":" + quote(entry.getEvent().getType()) + ",\"to\":" + quote(entry.getEvent().getTo()) + "}");
      }
      seen.add("\"events\":[" + String.join(",", events) + "]");
    } catch (Exception error) {
      seen.add("\"eventsError\":" + quote(error));
    }
    System.out.println("{" + String.join(",", seen) + "}");
  }
}
