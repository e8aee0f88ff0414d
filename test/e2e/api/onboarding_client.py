"""An onboarding system in Python, standard library only: it drives the onboarding API as a partner firm
would, and prints what it saw as one JSON object (the test asserts on it).

Usage: onboarding_client.py BASE_URL EXTERNAL_ID APPLICATION_XML_FILE PDF_FILE
Keys from the environment: ECA_API_KEY (role onboarding) and ECA_STAFF_KEY (role staff).
"""

import base64
import json
import os
import sys
import time
import urllib.error
import urllib.request


def call(base, key, method, path, body=None):
    """One request; answers (status, JSON body). Problems (4xx/5xx) are answers too, never exceptions."""
    data = None if body is None else json.dumps(body).encode("utf-8")
    request = urllib.request.Request(base + path, data=data, method=method)
    request.add_header("Authorization", "Bearer " + key)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            text = response.read().decode("utf-8")
            return response.status, (json.loads(text) if text else None)
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read().decode("utf-8"))


def follow(base, key, reference, wanted, timeout_s=120):
    """Reads the application until its lifecycle state is one of `wanted`; answers the last state."""
    deadline = time.time() + timeout_s
    while True:
        status, application = call(base, key, "GET", "/v1/applications/" + reference)
        if status != 200:
            raise SystemExit("reading %s answered %s: %s" % (reference, status, application))
        if application["lifecycleState"] in wanted or time.time() > deadline:
            return application
        time.sleep(0.2)


def main():
    base, external_id, xml_file, pdf_file = sys.argv[1:5]
    key, staff = os.environ["ECA_API_KEY"], os.environ["ECA_STAFF_KEY"]
    with open(xml_file, encoding="utf-8") as f:
        xml = f.read()
    with open(pdf_file, "rb") as f:
        pdf = base64.b64encode(f.read()).decode("ascii")
    seen = {}

    start = {"applicationXml": xml, "documents": [{"formNumber": "5002", "fileName": "w9.pdf", "contentBase64": pdf}]}
    status, started = call(base, key, "POST", "/v1/applications", start)
    seen["start"] = {"status": status, "existed": started["existed"], "workflowId": started["application"]["workflowId"]}
    status, again = call(base, key, "POST", "/v1/applications", start)
    seen["startAgain"] = {"status": status, "existed": again["existed"]}
    # A comment or other whitespace would be the same application: another value is a conflict.
    other = {"applicationXml": xml.replace('first="Jane"', 'first="Joan"', 1)}
    status, conflict = call(base, key, "POST", "/v1/applications", other)
    seen["conflict"] = {"status": status, "code": conflict.get("code"), "type": conflict.get("type")}

    asked = follow(base, key, external_id, {"needsDocuments", "open", "rejected"})
    # `documents` says what to provide: no reading of the brokerage's task actions and states.
    wanted = [document["formNumber"] for document in asked["documents"] if not document["provided"]]
    seen["asked"] = {"state": asked["lifecycleState"], "forms": sorted(wanted)}
    if asked["lifecycleState"] == "needsDocuments":
        documents = [{"formNumber": form, "contentBase64": pdf} for form in wanted]
        status, provided = call(base, key, "POST", "/v1/applications/%s/documents" % external_id, {"documents": documents})
        seen["provided"] = {"status": status, "state": provided.get("lifecycleState")}

    final = follow(base, key, external_id, {"open", "rejected"})
    seen["final"] = {"state": final["lifecycleState"], "accountId": final.get("accountId")}

    status, forbidden = call(base, key, "POST", "/v1/applications/%s/credentials" % external_id, {})
    seen["credentialsWithOnboardingKey"] = {"status": status, "code": forbidden.get("code")}
    status, credentials = call(base, staff, "POST", "/v1/applications/%s/credentials" % external_id, {})
    seen["credentials"] = {"status": status, "users": len(credentials.get("users", []))}
    status, twice = call(base, staff, "POST", "/v1/applications/%s/credentials" % external_id, {})
    seen["credentialsAgain"] = {"status": status, "code": twice.get("code")}

    link = {"userName": final.get("userName"), "ip": "203.0.113.7"}
    status, sso = call(base, key, "POST", "/v1/sso-links", link)
    seen["ssoLink"] = {"status": status, "url": sso.get("url", "")[:4]}
    path = "/v1/account-holders/%s/languages" % final.get("userName")
    status, _ = call(base, key, "PUT", path, {"lang1": "fr", "lang2": "en"})
    seen["languages"] = {"status": status}
    change = {"accountId": final["accountId"], "firmType": "advisor", "functionName": "ChangeBaseCurrency",
              "body": "<Currency>CHF</Currency>", "requestKey": "currency-" + external_id}
    status, request = call(base, key, "POST", "/v1/maintenance-requests", change)
    status_again, again = call(base, key, "POST", "/v1/maintenance-requests", change)
    seen["maintenance"] = {"status": status, "again": status_again, "same": request.get("workflowId") == again.get("workflowId")}
    status, run = call(base, key, "GET", "/v1/maintenance-requests/" + request["workflowId"])
    seen["maintenanceRead"] = {"status": status, "workflowId": run.get("workflowId") == request["workflowId"]}

    status, page = call(base, key, "GET", "/v1/applications?externalId=%s&pageSize=10" % external_id)
    seen["listed"] = {"status": status, "workflowIds": [a["workflowId"] for a in page["applications"]]}
    print(json.dumps(seen))


if __name__ == "__main__":
    main()
