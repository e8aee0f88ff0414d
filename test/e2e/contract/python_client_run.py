"""A partner firm's program on the Python client generated from docs/openapi.json (package
eca_onboarding_client, on PYTHONPATH): it prints what it saw as one JSON object (the contract test asserts on it).

Usage:
  python_client_run.py flow BASE_URL EXTERNAL_ID APPLICATION_XML_FILE PDF_FILE WEBHOOK_URL
      starts the application with a PDF, provides the documents it asks for, follows it to open, reads its
      events and registers a webhook;
  python_client_run.py read BASE_URL REFERENCE
      reads one application and its events (against a newer server's answers, in the compatibility test).
The API key (role onboarding) is ECA_API_KEY.
"""

import base64
import json
import os
import sys
import time

import eca_onboarding_client as client
from eca_onboarding_client.exceptions import ApiException


def apis(base):
    configuration = client.Configuration(host=base, access_token=os.environ["ECA_API_KEY"])
    api_client = client.ApiClient(configuration)
    return client.ApplicationsApi(api_client), client.EventsApi(api_client), client.WebhooksApi(api_client)


def follow(applications, reference, wanted, timeout_s=120):
    """Reads the application until its lifecycle state is one of `wanted`; answers the last read."""
    deadline = time.time() + timeout_s
    while True:
        application = applications.get_application(reference)
        if application.lifecycle_state in wanted or time.time() > deadline:
            return application
        time.sleep(0.2)


def flow(base, external_id, xml_file, pdf_file, webhook_url):
    applications, events, webhooks = apis(base)
    with open(xml_file, encoding="utf-8") as f:
        xml = f.read()
    with open(pdf_file, "rb") as f:
        pdf = base64.b64encode(f.read()).decode("ascii")
    seen = {}

    w9 = client.DocumentUpload(form_number="5002", file_name="w9.pdf", content_base64=pdf)
    started = applications.start_application(client.StartApplicationRequest(application_xml=xml, documents=[w9]))
    seen["start"] = {"existed": started.existed, "externalId": started.application.external_id}

    asked = follow(applications, external_id, {"needsDocuments", "open", "rejected"})
    seen["asked"] = asked.lifecycle_state
    if asked.lifecycle_state == "needsDocuments":
        documents = [
            client.DocumentUpload(form_number=task.form_number, content_base64=pdf)
            for task in asked.pending_tasks or []
            if task.action == "to send"
        ]
        provided = applications.provide_documents(external_id, client.ProvideDocumentsRequest(documents=documents))
        seen["provided"] = {"forms": len(documents), "state": provided.lifecycle_state}

    final = follow(applications, external_id, {"open", "rejected"})
    seen["final"] = {"state": final.lifecycle_state, "accountId": final.account_id, "done": final.done}

    page = events.list_application_events(external_id, after="start", limit=100)
    seen["events"] = [entry.event.type for entry in page.events]

    try:
        registered = webhooks.register_webhook(
            client.RegisterWebhookRequest(url=webhook_url, description="contract test (python)", after="start")
        )
        seen["webhook"] = {"status": 201, "hasSecret": bool(registered.secret), "url": registered.endpoint.url}
    except ApiException as error:
        body = json.loads(error.body) if error.body else {}
        seen["webhook"] = {"status": error.status, "code": body.get("code"), "detail": body.get("detail")}
    print(json.dumps(seen))


def read(base, reference):
    applications, events, _ = apis(base)
    seen = {}
    try:
        application = applications.get_application(reference)
        seen["application"] = {
            "state": application.lifecycle_state,
            "externalId": application.external_id,
            "workflowId": application.workflow_id,
            "done": application.done,
        }
    except Exception as error:  # the finding is the error itself
        seen["applicationError"] = "%s: %s" % (type(error).__name__, str(error)[:2000])
    try:
        page = events.list_application_events(reference, after="start", limit=100)
        seen["events"] = [{"type": entry.event.type, "to": entry.event.to} for entry in page.events]
    except Exception as error:
        seen["eventsError"] = "%s: %s" % (type(error).__name__, str(error)[:2000])
    print(json.dumps(seen))


if __name__ == "__main__":
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == "flow":
        flow(*args)
    elif mode == "read":
        read(*args)
    else:
        raise SystemExit("usage: python_client_run.py flow|read ...")
