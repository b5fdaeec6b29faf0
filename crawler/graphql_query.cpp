#include "crawler/graphql_query.h"

#include "core/text.h"

namespace convfail::crawler {
namespace {

// The fields of a comment and of the timeline items; appended to the documents that use them.
#define CF_COMMENT_FRAGMENT                                                        \
  "fragment CommentFields on IssueComment {\n"                                     \
  "  fullDatabaseId author { login } authorAssociation createdAt updatedAt body\n" \
  "}\n"

#define CF_TIMELINE_FRAGMENT                                                                       \
  "fragment TimelineFields on IssueTimelineItems {\n"                                              \
  "  __typename\n"                                                                                 \
  "  ... on AssignedEvent { actor { login } createdAt assignee { ... on User { login } } }\n"      \
  "  ... on UnassignedEvent { actor { login } createdAt }\n"                                       \
  "  ... on ClosedEvent { actor { login } createdAt\n"                                             \
  "    closer { __typename ... on Commit { oid } ... on PullRequest { mergeCommit { oid } } } }\n" \
  "  ... on ReopenedEvent { actor { login } createdAt }\n"                                         \
  "  ... on ConnectedEvent { actor { login } createdAt }\n"                                        \
  "  ... on DisconnectedEvent { actor { login } createdAt }\n"                                     \
  "  ... on CrossReferencedEvent { actor { login } createdAt\n"                                    \
  "    source { __typename\n"                                                                      \
  "      ... on Issue { number state url repository { nameWithOwner } }\n"                         \
  "      ... on PullRequest { number pullState: state url repository { nameWithOwner } } } }\n"    \
  "  ... on LabeledEvent { actor { login } createdAt label { name } }\n"                           \
  "  ... on UnlabeledEvent { actor { login } createdAt label { name } }\n"                         \
  "  ... on MentionedEvent { actor { login } createdAt }\n"                                        \
  "  ... on ReferencedEvent { actor { login } createdAt commit { oid } }\n"                        \
  "  ... on RenamedTitleEvent { actor { login } createdAt previousTitle currentTitle }\n"          \
  "  ... on SubscribedEvent { actor { login } createdAt }\n"                                       \
  "  ... on UnsubscribedEvent { actor { login } createdAt }\n"                                     \
  "  ... on MarkedAsDuplicateEvent { actor { login } createdAt }\n"                                \
  "  ... on IssueComment { fullDatabaseId author { login } createdAt }\n"                          \
  "}\n"

#define CF_TIMELINE_TYPES                                                              \
  "[ASSIGNED_EVENT, UNASSIGNED_EVENT, CLOSED_EVENT, REOPENED_EVENT, CONNECTED_EVENT, " \
  "DISCONNECTED_EVENT, CROSS_REFERENCED_EVENT, LABELED_EVENT, UNLABELED_EVENT, "       \
  "MENTIONED_EVENT, REFERENCED_EVENT, RENAMED_TITLE_EVENT, SUBSCRIBED_EVENT, "         \
  "UNSUBSCRIBED_EVENT, MARKED_AS_DUPLICATE_EVENT, ISSUE_COMMENT]"

#define CF_RATE_LIMIT "  rateLimit { cost remaining resetAt limit }\n"

}  // namespace

const char* const kIssuesQuery =
    "query ConvfailIssues($owner: String!, $name: String!, $first: Int!, $after: String,\n"
    "    $since: DateTime, $labels: [String!], $states: [IssueState!], $comments: Int!,\n"
    "    $withTimeline: Boolean!) {\n" CF_RATE_LIMIT
    "  repository(owner: $owner, name: $name) {\n"
    "    nameWithOwner\n"
    "    issues(first: $first, after: $after, orderBy: {field: UPDATED_AT, direction: ASC},\n"
    "        filterBy: {since: $since, labels: $labels, states: $states}) {\n"
    "      totalCount pageInfo { hasNextPage endCursor }\n"
    "      nodes {\n"
    "        id fullDatabaseId number title body state createdAt updatedAt closedAt url\n"
    "        authorAssociation author { login }\n"
    "        labels(first: 100) { pageInfo { hasNextPage endCursor } nodes { name } }\n"
    "        comments(first: $comments) {\n"
    "          totalCount pageInfo { hasNextPage endCursor } nodes { ...CommentFields }\n"
    "        }\n"
    "        timelineItems(first: 100, itemTypes: " CF_TIMELINE_TYPES
    ") @include(if: $withTimeline) {\n"
    "          pageInfo { hasNextPage endCursor } nodes { ...TimelineFields }\n"
    "        }\n"
    "      }\n"
    "    }\n"
    "  }\n"
    "}\n" CF_COMMENT_FRAGMENT CF_TIMELINE_FRAGMENT;

const char* const kIssueCommentsQuery =
    "query ConvfailIssueComments($owner: String!, $name: String!, $number: Int!,\n"
    "    $after: String) {\n" CF_RATE_LIMIT
    "  repository(owner: $owner, name: $name) {\n"
    "    issue(number: $number) {\n"
    "      comments(first: 100, after: $after) {\n"
    "        pageInfo { hasNextPage endCursor } nodes { ...CommentFields }\n"
    "      }\n"
    "    }\n"
    "  }\n"
    "}\n" CF_COMMENT_FRAGMENT;

const char* const kIssueTimelineQuery =
    "query ConvfailIssueTimeline($owner: String!, $name: String!, $number: Int!,\n"
    "    $after: String) {\n" CF_RATE_LIMIT
    "  repository(owner: $owner, name: $name) {\n"
    "    issue(number: $number) {\n"
    "      timelineItems(first: 100, after: $after, itemTypes: " CF_TIMELINE_TYPES
    ") {\n"
    "        pageInfo { hasNextPage endCursor } nodes { ...TimelineFields }\n"
    "      }\n"
    "    }\n"
    "  }\n"
    "}\n" CF_TIMELINE_FRAGMENT;

const char* const kIssueLabelsQuery =
    "query ConvfailIssueLabels($owner: String!, $name: String!, $number: Int!,\n"
    "    $after: String) {\n" CF_RATE_LIMIT
    "  repository(owner: $owner, name: $name) {\n"
    "    issue(number: $number) {\n"
    "      labels(first: 100, after: $after) {\n"
    "        pageInfo { hasNextPage endCursor } nodes { name }\n"
    "      }\n"
    "    }\n"
    "  }\n"
    "}\n";

std::vector<std::pair<std::string, std::string>> graphql_documents() {
  return {{"ConvfailIssues", kIssuesQuery},
          {"ConvfailIssueComments", kIssueCommentsQuery},
          {"ConvfailIssueTimeline", kIssueTimelineQuery},
          {"ConvfailIssueLabels", kIssueLabelsQuery}};
}

std::string graphql_endpoint(const std::string& api_root) {
  std::string root = api_root;
  while (!root.empty() && root.back() == '/') root.pop_back();
  if (ends_with(root, "/api/v3")) return root.substr(0, root.size() - 3) + "/graphql";
  return root + "/graphql";
}

}  // namespace convfail::crawler
